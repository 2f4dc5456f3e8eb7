package io.portico.proxy;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import static io.portico.proxy.TestConfigs.failingAfter;
import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.target;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Retries on timeouts, like nginx's default {@code proxy_next_upstream error timeout}: a connect timeout goes to the
 * next server for any method, a read timeout before the response head only for an idempotent one; every timeout
 * counts toward the server's {@code max-fails}; a connect timeout with nothing left to try is 504.
 */
class ProxyRetryTest {
    private static final Duration SHORT = Duration.ofMillis(200);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseSilentUpstreams() {
        release.countDown();
    }

    /** An app server that reads the request and never answers (until the test ends). */
    private TestUpstream silent() throws Exception {
        return new TestUpstream((req, out, s) -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return false;
        });
    }

    private static UpstreamConfig pool(int retries, UpstreamServerConfig... servers) {
        return TestConfigs.withRetries(TestConfigs.withTimeouts(upstream(List.of(servers)), SHORT, SHORT), retries);
    }

    @Test
    void aConnectTimeoutWithNothingLeftToTryIs504AndTheLoneServerStaysInRotation() throws Exception {
        try (UnansweredPort nowhere = new UnansweredPort();
                ProxiedServer proxy = new ProxiedServer(pool(0, failingAfter(nowhere.port(), 1)), target(true, true),
                        1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            assertThat(client.get("/").status()).isEqualTo(504);
            assertThat(proxy.log().note()).isEqualTo("upstream_error=\"connect timed out\"");
            assertThat(proxy.log().upstreamNanos()).isGreaterThanOrEqualTo(SHORT.toNanos() / 2);
            // max-fails = 1 was reached, but as in nginx a pool's only server is never taken out: the next request
            // tries it again (a timeout again) instead of getting fail-timeout's worth of instant 502s
            assertThat(proxy.serverUp(0)).isTrue();
            assertThat(client.get("/").status()).isEqualTo(504);
        }
    }

    @Test
    void aConnectTimeoutSendsEvenAPostToTheNextServer() throws Exception {
        try (UnansweredPort nowhere = new UnansweredPort();
                TestUpstream good = new TestUpstream(TestUpstream.ok("good"));
                ProxiedServer proxy = new ProxiedServer(pool(1, failingAfter(nowhere.port(), 1), server(good.port())),
                        target(true, true), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            // Round-robin picks the first server first: nothing reached it, so the POST may go on.
            client.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            Response r = client.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("good");
            assertThat(good.requests).singleElement()
                    .satisfies(req -> assertThat(new String(req.body())).isEqualTo("abc"));
            assertThat(proxy.serverUp(0)).isFalse();
        }
    }

    @Test
    void aReadTimeoutBeforeTheHeadSendsAGetToTheNextServerAndCountsAsAFailure() throws Exception {
        try (TestUpstream stalls = silent();
                TestUpstream good = new TestUpstream(TestUpstream.ok("good"));
                ProxiedServer proxy = new ProxiedServer(pool(1, failingAfter(stalls.port(), 1), server(good.port())),
                        target(true, true), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            Response r = client.get("/g");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("good");
            assertThat(stalls.requests).extracting(TestUpstream.Request::uri).containsExactly("/g");
            assertThat(good.requests).extracting(TestUpstream.Request::uri).containsExactly("/g");
            assertThat(proxy.serverUp(0)).isFalse();
        }
    }

    @Test
    void aPostThatTimedOutAfterItWasSentIsNeverSentAgain() throws Exception {
        try (TestUpstream stalls = silent();
                TestUpstream good = new TestUpstream(TestUpstream.ok("good"));
                ProxiedServer proxy = new ProxiedServer(pool(1, failingAfter(stalls.port(), 1), server(good.port())),
                        target(true, true), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            assertThat(client.read().status()).isEqualTo(504);
            assertThat(proxy.log().note()).contains("read timed out");
            assertThat(stalls.requests).hasSize(1);
            assertThat(good.requests).isEmpty();
            assertThat(proxy.serverUp(0)).isFalse();
        }
    }

    @Test
    void aGetIsNotSentAgainWhenNoRetriesAreLeft() throws Exception {
        try (TestUpstream stalls = silent();
                TestUpstream good = new TestUpstream(TestUpstream.ok("good"));
                ProxiedServer proxy = new ProxiedServer(pool(0, server(stalls.port()), server(good.port())),
                        target(true, true), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            assertThat(client.get("/g").status()).isEqualTo(504);
            assertThat(good.requests).isEmpty();
        }
    }
}
