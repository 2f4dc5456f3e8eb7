package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.testing.RefusedPort;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An upstream that misbehaves in every way it can, through a buffering location and a streaming one, with
 * 300 ms timeouts: the client gets 502/504, or a response aborted at the point the upstream failed, always
 * within the timeouts; and the upstream connection is never reused after an anomaly (the next request arrives
 * on a new connection).
 */
class UpstreamFaultsTest {
    @RegisterExtension
    static final SharedPortico SHARED = new SharedPortico();

    private static ProxiedPortico portico() {
        return SHARED.get();
    }

    @FunctionalInterface
    interface Fault {
        void answer(RecordingUpstream.Conn c) throws IOException;
    }

    /** Relayed cases after which the upstream connection may well be reused. */
    private static final java.util.Set<String> WELL_FORMED = java.util.Set.of(
            "status line without reason", "100 Continue before the response", "103 Early Hints before the response");

    enum Outcome { BAD_GATEWAY, GATEWAY_TIMEOUT, ABORTED, RELAYED }

    static Stream<Arguments> faults() {
        String big = "x".repeat(64 * 1024);
        Stream<Arguments> cases = Stream.of(
                fault("reset before the response", Outcome.BAD_GATEWAY, RecordingUpstream.Conn::reset),
                fault("close before the response", Outcome.BAD_GATEWAY, c -> c.channel.close()),
                fault("stall before the head", Outcome.GATEWAY_TIMEOUT, c -> c.readHead()),
                fault("half a status line then stall", Outcome.GATEWAY_TIMEOUT, c -> {
                    c.write("HTTP/1.1 2");
                    c.readHead();
                }),
                fault("garbage status line", Outcome.BAD_GATEWAY, c -> c.write("SMTP ready\r\n\r\n")),
                fault("status line without reason", Outcome.RELAYED,
                        c -> c.write("HTTP/1.1 200\r\nContent-Length: 5\r\n\r\nhello")),
                fault("status out of range", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 1000 Huge\r\nContent-Length: 0\r\n\r\n")),
                fault("HTTP/0.9 body", Outcome.BAD_GATEWAY, c -> {
                    c.write("hello world, no head at all\n");
                    c.channel.close();
                }),
                fault("oversized response head", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nX-Big: " + big + "\r\nContent-Length: 0\r\n\r\n")),
                fault("header without colon", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nNoColon\r\nContent-Length: 5\r\n\r\nhello")),
                fault("bad Content-Length", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhello")),
                fault("two Content-Lengths", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")),
                fault("Content-Length and chunked", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "5\r\nhello\r\n0\r\n\r\n")),
                fault("HTTP/2.0 status line", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/2.0 200 OK\r\nContent-Length: 5\r\n\r\nhello")),
                fault("lower-case version", Outcome.BAD_GATEWAY,
                        c -> c.write("http/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")),
                fault("four-digit status", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 0200 OK\r\nContent-Length: 5\r\n\r\nhello")),
                fault("space before the colon, then a second response", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n"
                                + "helloHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil")),
                fault("whitespace before the first field", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\n Content-Length: 5\r\n\r\nhello")),
                fault("two equal Content-Lengths", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")),
                fault("HTTP/1.0 with two different Content-Lengths", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.0 200 OK\r\nContent-Length: 5\r\nContent-Length: 9\r\n\r\nhello")),
                fault("unknown Transfer-Encoding, then close", Outcome.BAD_GATEWAY, c -> {
                    c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nhello");
                    c.channel.close();
                }),
                fault("Transfer-Encoding Chunked", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n"
                                + "5\r\nhello\r\n0\r\n\r\n")),
                fault("two Transfer-Encoding fields", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")),
                fault("Transfer-Encoding on HTTP/1.0", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "5\r\nhello\r\n0\r\n\r\n")),
                fault("101 header fields", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\n" + "X-N: n\r\n".repeat(100)
                                + "Content-Length: 5\r\n\r\nhello")),
                fault("response head over 16 KiB", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nX-Big: " + "x".repeat(16 * 1024)
                                + "\r\nContent-Length: 5\r\n\r\nhello")),
                fault("control character in a header", Outcome.BAD_GATEWAY,
                        c -> c.write("HTTP/1.1 200 OK\r\nX-A: a\u0001b\r\nContent-Length: 0\r\n\r\n")),
                fault("100 Continue before the response", Outcome.RELAYED,
                        c -> c.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")),
                fault("103 Early Hints before the response", Outcome.RELAYED,
                        c -> c.write("HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                                + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")),
                fault("Content-Length shorter than the body", Outcome.RELAYED,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                                + "helloEXTRA BYTES THAT ARE NOT A RESPONSE")),
                fault("a whole second response after the first", Outcome.RELAYED,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                                + "helloHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nevil")),
                fault("a partial head after the body", Outcome.RELAYED,
                        c -> c.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                                + "helloHTTP/1.1 200 OK\r\nX-Evil: 1\r\n")),
                fault("Content-Length longer than the body, then close", Outcome.ABORTED, c -> {
                    c.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello");
                    c.channel.close();
                }),
                fault("reset after the head", Outcome.ABORTED, c -> {
                    c.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello");
                    c.reset();
                }),
                fault("stall after the head", Outcome.ABORTED, c -> {
                    c.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhello");
                    c.readHead();
                }),
                fault("chunked body cut short", Outcome.ABORTED, c -> {
                    c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n64\r\nabc");
                    c.channel.close();
                }),
                fault("broken chunk size", Outcome.ABORTED,
                        c -> c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                + "5\r\nhello\r\nzz\r\nabc\r\n0\r\n\r\n")));
        return cases.flatMap(a -> Stream.of("/", "/stream/")
                .map(path -> Arguments.of(a.get()[0], path, a.get()[1], a.get()[2])));
    }

    private static Arguments fault(String name, Outcome outcome, Fault fault) {
        return Arguments.of(name, outcome, fault);
    }

    @ParameterizedTest(name = "{0} at {1} -> {2}")
    @MethodSource("faults")
    void isContainedAndTheConnectionNotReused(String name, String path, Outcome outcome, Fault fault) throws Exception {
        portico().upstream.behave((c, r) -> fault.answer(c));
        Exchange e = Exchange.run(portico().port, "GET " + path + "anomaly HTTP/1.1\r\nHost: x\r\n\r\n");
        switch (outcome) {
            case BAD_GATEWAY -> assertThat(e.status()).as(name).isEqualTo(502);
            case GATEWAY_TIMEOUT -> assertThat(e.status()).as(name).isEqualTo(504);
            case RELAYED -> {
                assertThat(e.status()).as(name).isEqualTo(200);
                assertThat(e.text()).isEqualTo("hello");
            }
            // The head may have gone out before the fault (then the body stops short), or not (then 502).
            case ABORTED -> assertThat(e.abortedShort() || e.status() == 502).as(name + ": " + e).isTrue();
        }
        assertThat(e.millis()).as("answered within the timeouts").isLessThan(2000);

        portico().upstream.behave(RecordingUpstream::keepAliveOk);
        int before = portico().upstream.connectionsAccepted();
        Exchange next = Exchange.run(portico().port, "GET " + path + "next HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(next.status()).isEqualTo(200);
        assertThat(next.text()).startsWith("ok 0 ");
        assertThat(next.text()).doesNotContain("evil");
        if (!WELL_FORMED.contains(name)) {
            assertThat(portico().upstream.connectionsAccepted()).as("a new upstream connection after " + name)
                    .isEqualTo(before + 1);
        }
    }

    @Test
    void aRefusedConnectionIs502() throws Exception {
        RefusedPort refused = new RefusedPort();
        int closedPort = refused.port();
        var server = TestServers.start(ProxiedPortico.LIMITS
                + "upstreams { app { servers = [{ address = \"127.0.0.1:" + closedPort
                + "\", max-fails = 0 }], retries = 0, connect-timeout = 300ms } }\n"
                + "locations = [ { path = \"/\", proxy = app } ]");
        try {
            Exchange e = Exchange.run(TestServers.port(server), "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(e.status()).isEqualTo(502);
            assertThat(e.millis()).isLessThan(2000);
        } finally {
            server.stop();
            refused.close();
        }
    }

    @Test
    void aKeptAliveConnectionIsReusedWhenNothingWentWrong() throws Exception {
        Exchange.run(portico().port, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        Exchange.run(portico().port, "GET /b HTTP/1.1\r\nHost: x\r\n\r\n");
        // the control for the assertions above: without an anomaly, the pool keeps using one connection
        assertThat(portico().upstream.connectionsAccepted()).isEqualTo(1);
        assertThat(portico().upstream.requests()).hasSize(2);
    }

    /**
     * The default limits, exactly: 16 KiB of field lines (line endings not counted) and 100 fields are relayed, one
     * byte or one field more is a 502.
     */
    @Test
    void theDefaultResponseHeadLimitsHoldToTheByteAndTheField() throws Exception {
        String cl = "Content-Length: 5";
        String fill = "X-Big: " + "x".repeat(16 * 1024 - "X-Big: ".length() - cl.length());
        assertThat(relayedStatus("HTTP/1.1 200 OK\r\n" + fill + "\r\n" + cl + "\r\n\r\nhello")).isEqualTo(200);
        assertThat(relayedStatus("HTTP/1.1 200 OK\r\n" + fill + "x\r\n" + cl + "\r\n\r\nhello")).isEqualTo(502);
        assertThat(relayedStatus("HTTP/1.1 200 OK\r\n" + "X-N: n\r\n".repeat(99) + cl + "\r\n\r\nhello"))
                .isEqualTo(200);
        assertThat(relayedStatus("HTTP/1.1 200 OK\r\n" + "X-N: n\r\n".repeat(100) + cl + "\r\n\r\nhello"))
                .isEqualTo(502);
    }

    private static int relayedStatus(String response) throws IOException {
        portico().upstream.behave((c, r) -> c.write(response));
        return Exchange.run(portico().port, "GET /limits HTTP/1.1\r\nHost: x\r\n\r\n").status();
    }

    /** The limits are the upstream's own: {@code proxy-max-header-size} and {@code proxy-max-header-count}. */
    @Test
    void anUpstreamsOwnHeadLimitsApply() throws Exception {
        try (ProxiedPortico small = new ProxiedPortico(RecordingUpstream.tcp(), ProxiedPortico.LIMITS,
                ", proxy-max-header-size = 100, proxy-max-header-count = 3")) {
            small.upstream.behave((c, r) -> c.write(r.requestLine().contains("/four")
                    ? "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nContent-Length: 2\r\n\r\nok"
                    : r.requestLine().contains("/long")
                            ? "HTTP/1.1 200 OK\r\nA: " + "a".repeat(100) + "\r\nContent-Length: 2\r\n\r\nok"
                            : "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nContent-Length: 2\r\n\r\nok"));
            assertThat(Exchange.run(small.port, "GET /three HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(200);
            assertThat(Exchange.run(small.port, "GET /four HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(502);
            assertThat(Exchange.run(small.port, "GET /long HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(502);
        }
    }
}
