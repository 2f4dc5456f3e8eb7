package io.portico.testing;

import io.portico.config.ConfigLoader;
import io.portico.config.InvalidConfigException;
import io.portico.config.PorticoConfig;
import io.portico.server.ListenException;
import io.portico.server.PorticoServer;
import java.nio.file.Path;

/** Starts a real Portico on a loopback port chosen by the kernel, from configuration text. */
public final class TestServers {
    private TestServers() {}

    /** {@code body} is HOCON inside {@code portico { }}; listen, access log and workers are set for tests. */
    public static PorticoConfig config(String body, Path prefix) {
        String text = "portico {\n listen = [\"127.0.0.1:0\"]\n access-log = off\n workers = 1\n"
                + " shutdown-timeout = 1s\n" + body + "\n}";
        try {
            return ConfigLoader.parse(text, "test.conf", prefix);
        } catch (InvalidConfigException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    public static PorticoServer start(String body) {
        return start(config(body, Path.of(".")));
    }

    public static PorticoServer start(PorticoConfig config) {
        try {
            return PorticoServer.start(config);
        } catch (ListenException e) {
            throw new IllegalStateException(e);
        }
    }

    public static int port(PorticoServer server) {
        return server.localAddresses().get(0).getPort();
    }
}
