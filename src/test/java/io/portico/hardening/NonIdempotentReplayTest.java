package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An upstream that reads a request and closes without answering: a non-idempotent request (POST, PATCH, LOCK, any
 * method outside RFC 9110's idempotent set) that was written to it is never written again, to that server or
 * another, on a fresh connection or after a reused keep-alive connection turned out dead, with and without
 * {@code retries}. The client gets 502; the two recording upstreams together see the request exactly once.
 */
class NonIdempotentReplayTest {

    static Stream<Arguments> cases() {
        return Stream.of("POST", "PATCH", "LOCK", "MKCOL").flatMap(method -> Stream.of(0, 1)
                .flatMap(retries -> Stream.of(false, true)
                        .flatMap(pooled -> Stream.of("/", "/stream/")
                                .map(path -> Arguments.of(method, retries, pooled, path)))));
    }

    /** GETs are answered (they fill the pool); anything else is read whole and then the connection is closed. */
    private static void answerGetsCloseOthers(RecordingUpstream.Conn c, RecordingUpstream.Request r)
            throws IOException {
        if (r.requestLine().startsWith("GET ")) {
            RecordingUpstream.keepAliveOk(c, r);
        } else {
            c.channel.close();
        }
    }

    private static PorticoServer twoServers(RecordingUpstream a, RecordingUpstream b, int retries)
            throws IOException {
        return TestServers.start(ProxiedPortico.LIMITS
                + "upstreams { app { servers = [{ address = \"" + a.address() + "\", max-fails = 0 },"
                + " { address = \"" + b.address() + "\", max-fails = 0 }], retries = " + retries
                + ", connect-timeout = 300ms, read-timeout = 300ms, send-timeout = 300ms } }\n"
                + "locations = [ { path = \"/\", proxy = app },"
                + " { path = \"/stream/\", proxy = app, streaming = true } ]\n");
    }

    @ParameterizedTest(name = "{0} retries={1} pooled={2} at {3}")
    @MethodSource("cases")
    void isWrittenOnceAndAnswered502(String method, int retries, boolean pooled, String path) throws Exception {
        try (RecordingUpstream a = RecordingUpstream.tcp(); RecordingUpstream b = RecordingUpstream.tcp()) {
            a.behave(NonIdempotentReplayTest::answerGetsCloseOthers);
            b.behave(NonIdempotentReplayTest::answerGetsCloseOthers);
            PorticoServer server = twoServers(a, b, retries);
            try {
                int port = TestServers.port(server);
                if (pooled) {
                    // Round-robin: one GET to each server, so whichever gets the request next has an idle connection.
                    assertThat(Exchange.run(port, "GET /warm HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);
                    assertThat(Exchange.run(port, "GET /warm HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);
                }
                int connectionsBefore = a.connectionsAccepted() + b.connectionsAccepted();
                Exchange e = Exchange.run(port, method + " " + path + "once HTTP/1.1\r\nHost: x\r\n"
                        + "Content-Length: 5\r\n\r\nhello");

                assertThat(e.status()).as("the client's answer").isEqualTo(502);
                long written = Stream.concat(a.requests().stream(), b.requests().stream())
                        .filter(r -> r.requestLine().startsWith(method + " ")).count();
                assertThat(written).as(method + " requests the upstreams saw").isEqualTo(1);
                int connections = a.connectionsAccepted() + b.connectionsAccepted() - connectionsBefore;
                assertThat(connections).as("upstream connections opened for it").isEqualTo(pooled ? 0 : 1);
            } finally {
                server.stop();
            }
        }
    }

    /** The control: an idempotent request with a buffered body, written and unanswered, goes on only per retries. */
    @ParameterizedTest(name = "PUT retries={0}")
    @MethodSource("retryCounts")
    void anIdempotentRequestIsWrittenAgainOnlyPerRetries(int retries) throws Exception {
        try (RecordingUpstream a = RecordingUpstream.tcp(); RecordingUpstream b = RecordingUpstream.tcp()) {
            a.behave(NonIdempotentReplayTest::answerGetsCloseOthers);
            b.behave(NonIdempotentReplayTest::answerGetsCloseOthers);
            PorticoServer server = twoServers(a, b, retries);
            try {
                Exchange e = Exchange.run(TestServers.port(server),
                        "PUT /twice HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
                assertThat(e.status()).isEqualTo(502);
                assertThat(a.requests().size() + b.requests().size()).as("PUTs written").isEqualTo(1 + retries);
            } finally {
                server.stop();
            }
        }
    }

    static Stream<Integer> retryCounts() {
        return Stream.of(0, 1);
    }
}
