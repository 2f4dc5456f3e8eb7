package io.portico.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.portico.config.IoTransport;
import io.portico.transport.Transport;

/**
 * The transport for tests that build their own event loops: the one {@code PORTICO_TRANSPORT} names (CI runs the
 * suite once on io_uring that way), else the default; NIO when a test asks for it.
 */
public final class TestTransport {
    private TestTransport() {}

    public static Transport of(boolean nativeWanted) {
        IoTransport choice = IoTransport.NIO;
        if (nativeWanted) {
            String env = System.getenv("PORTICO_TRANSPORT");
            IoTransport named = env == null || env.isEmpty() ? null : IoTransport.parse(env);
            choice = named != null ? named : IoTransport.AUTO;
        }
        try {
            return Transport.select(choice, note -> { });
        } catch (Transport.TransportUnavailableException e) {
            throw new IllegalStateException("PORTICO_TRANSPORT: " + e.getMessage(), e);
        }
    }

    /** The transport {@code choice} names, for a test that runs on each: the test is skipped where it does not load. */
    public static Transport loadedOrSkip(IoTransport choice) {
        try {
            return Transport.select(choice, note -> { });
        } catch (Transport.TransportUnavailableException e) {
            assumeTrue(false, e.getMessage());
            throw new AssertionError("unreachable: the assumption above aborts the test");
        }
    }
}
