package io.portico.proxy;

import io.portico.testing.RawHttp;
import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * RFC 7239 Forwarded behind a trusted proxy: its first element names the client and scheme that X-Forwarded-For
 * and -Proto name, and Portico's own hop comes last.
 */
class ForwardedHeaderTest {

    private static TestUpstream.Request forward(boolean trusted, String headers) throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        TestConfigs.target(true, true), 1 << 20, 1, false, "/", trusted);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET / HTTP/1.1\r\nHost: front.test\r\n" + headers + "\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            return app.requests.peek();
        }
    }

    @Test
    void aTrustedBalancersXForwardedHeadersBecomeTheFirstElement() throws Exception {
        TestUpstream.Request seen = forward(true, "X-Forwarded-For: 203.0.113.7\r\nX-Forwarded-Proto: https\r\n"
                + "X-Forwarded-Host: public.example\r\n");
        assertThat(seen.header("x-forwarded-for")).isEqualTo("203.0.113.7, 127.0.0.1");
        assertThat(seen.header("x-forwarded-proto")).isEqualTo("https");
        assertThat(seen.header("forwarded")).isEqualTo(
                "for=203.0.113.7;host=\"public.example\";proto=https, for=127.0.0.1;host=\"front.test\";proto=http");
    }

    @Test
    void everyXForwardedForHopIsAnElementInOrderAndIpv6IsBracketed() throws Exception {
        TestUpstream.Request seen = forward(true, "X-Forwarded-For: 2001:db8::7, 10.0.0.2,unknown\r\n"
                + "X-Forwarded-Proto: https\r\n");
        assertThat(seen.header("forwarded")).isEqualTo("for=\"[2001:db8::7]\";proto=https, for=10.0.0.2, "
                + "for=unknown, for=127.0.0.1;host=\"front.test\";proto=http");
    }

    @Test
    void aTrustedProxysOwnForwardedIsExtendedAsSent() throws Exception {
        TestUpstream.Request seen = forward(true, "X-Forwarded-For: 198.51.100.1\r\n"
                + "Forwarded: for=203.0.113.7;proto=https\r\n");
        assertThat(seen.header("forwarded"))
                .isEqualTo("for=203.0.113.7;proto=https, for=127.0.0.1;host=\"front.test\";proto=http");
    }

    @Test
    void anUntrustedClientsXForwardedHeadersAreNotBelieved() throws Exception {
        TestUpstream.Request seen = forward(false, "X-Forwarded-For: 6.6.6.6\r\nX-Forwarded-Proto: https\r\n");
        assertThat(seen.header("forwarded")).isEqualTo("for=127.0.0.1;host=\"front.test\";proto=http");
    }

    @Test
    void aForgedProtoOrQuoteCannotBreakTheSyntax() throws Exception {
        TestUpstream.Request seen = forward(true, "X-Forwarded-For: 203.0.113.7:4711\r\n"
                + "X-Forwarded-Proto: https;for=evil\r\nX-Forwarded-Host: a\"b\r\n");
        assertThat(seen.header("forwarded")).isEqualTo(
                "for=\"203.0.113.7:4711\";host=\"ab\", for=127.0.0.1;host=\"front.test\";proto=http");
    }
}
