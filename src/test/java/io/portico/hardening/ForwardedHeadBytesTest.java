package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.testing.RawHttp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The forwarded request head byte for byte, as the upstream reads it. The head is written from the client's decoded
 * fields (proxy.ForwardedHead), not from a copy of them: the client's fields keep their order and spelling, the
 * ones the rewrite owns are left out wherever they stood, and Portico's own follow, in a fixed order.
 */
class ForwardedHeadBytesTest {
    static ProxiedPortico portico;

    @BeforeAll
    static void start() throws Exception {
        portico = ProxiedPortico.start();
    }

    @AfterAll
    static void stop() throws Exception {
        portico.close();
    }

    @Test
    void clientFieldsKeepOrderAndSpellingOwnedOnesAreLeftOutAndPorticosFollow() throws Exception {
        String head = forwarded("GET /a/../b?q=1 HTTP/1.1\r\nuser-agent: UA\r\nHost: front.test\r\n"
                + "X-Forwarded-For: 6.6.6.6\r\nConnection: keep-alive, X-Secret\r\nX-Secret: s\r\nACCEPT: */*\r\n"
                + "X_Under: u\r\nForwarded: for=6.6.6.6\r\nX-Custom-Thing: a b\r\n\r\n");
        assertThat(head).isEqualTo("GET /b?q=1 HTTP/1.1\r\n"
                + "user-agent: UA\r\nHost: front.test\r\nACCEPT: */*\r\nX-Custom-Thing: a b\r\n"
                + "X-Forwarded-For: 127.0.0.1\r\nX-Real-IP: 127.0.0.1\r\nX-Forwarded-Proto: http\r\n"
                + "X-Forwarded-Host: front.test\r\nForwarded: for=127.0.0.1;host=\"front.test\";proto=http\r\n"
                + "\r\n");
    }

    @Test
    void aBufferedChunkedBodyGoesWithItsCountedLengthInsteadOfTheClientsFraming() throws Exception {
        String head = forwarded("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n"
                + "3\r\nabc\r\n0\r\n\r\n");
        assertThat(head).startsWith("POST /up HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nX-Forwarded-For: 127.0.0.1\r\n")
                .endsWith(";proto=http\r\nContent-Length: 3\r\n\r\n")
                .doesNotContainIgnoringCase("transfer-encoding");
    }

    @Test
    void aStreamedChunkedBodyStaysChunkedAndAnHttp10RequestWithoutHostGetsTheServers() throws Exception {
        String chunked = forwarded("POST /stream/up HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
        assertThat(chunked).startsWith("POST /stream/up HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\n"
                + "transfer-encoding: chunked\r\nX-Forwarded-For: 127.0.0.1\r\n");
        String http10 = forwarded("GET /old HTTP/1.0\r\nX-A: 1\r\n\r\n");
        assertThat(http10).startsWith("GET /old HTTP/1.1\r\nX-A: 1\r\nX-Forwarded-For: 127.0.0.1\r\n")
                .endsWith(";proto=http\r\nhost: " + portico.upstream.address() + "\r\n\r\n")
                .doesNotContain("X-Forwarded-Host");
    }

    @Test
    void aStreamedBodysContentLengthThatConnectionNamesStaysWithIt() throws Exception {
        String head = forwarded("POST /stream/up HTTP/1.1\r\nHost: h\r\nConnection: Content-Length\r\n"
                + "Content-Length: 3\r\n\r\nabc");
        assertThat(head).contains("\r\nContent-Length: 3\r\n");
        assertThat(portico.upstream.requests().get(portico.upstream.requests().size() - 1).bodyLength())
                .isEqualTo(3);
    }

    private static String forwarded(String request) throws Exception {
        int before = portico.upstream.requests().size();
        try (RawHttp c = new RawHttp(portico.port)) {
            assertThat(c.send(request).read().status()).isEqualTo(200);
        }
        return portico.upstream.requests().get(before).head();
    }
}
