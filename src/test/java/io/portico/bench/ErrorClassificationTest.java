package io.portico.bench;

import io.portico.testing.RefusedPort;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ErrorClassificationTest {

    @Test
    void closedPortIsConnectRefused() throws Exception {
        BenchResult r;
        try (RefusedPort refused = new RefusedPort()) {
            r = Runs.run(
                    Runs.options("http://127.0.0.1:" + refused.port() + "/", 1, 3, null, 0, Duration.ofSeconds(2)));
        }
        assertThat(r.tally().errors(ErrorClass.CONNECT_REFUSED)).isEqualTo(3);
        assertThat(r.tally().responses()).isZero();
        assertThat(r.tally().clientSideErrors()).isZero();
    }

    @Test
    void lingerZeroCloseIsReset() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.RESET)) {
            BenchResult r = Runs.run(Runs.options(server.url("/"), 1, 3, null, 0, Duration.ofSeconds(2)));
            assertThat(r.tally().errors(ErrorClass.RESET)).isEqualTo(3);
            assertThat(r.availabilityPercent()).isZero();
        }
    }

    @Test
    void closeBeforeResponseIsPrematureClose() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.CLOSE_WITHOUT_RESPONSE)) {
            BenchResult r = Runs.run(Runs.options(server.url("/"), 1, 3, null, 0, Duration.ofSeconds(2)));
            assertThat(r.tally().errors(ErrorClass.PREMATURE_CLOSE)).isEqualTo(3);
        }
    }

    @Test
    void stalledServerIsReadTimeoutRecordedAtTheTimeout() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.NEVER_ANSWER)) {
            BenchResult r = Runs.run(Runs.options(server.url("/"), 2, 2, null, 0, Duration.ofMillis(200)));
            assertThat(r.tally().errors(ErrorClass.READ_TIMEOUT)).isEqualTo(2);
            assertThat(r.total().getTotalCount()).as("timeouts are recorded, not dropped").isEqualTo(2);
            assertThat(r.latencyMs(50)).isGreaterThanOrEqualTo(199.0);
        }
    }

    @Test
    void statusClassesAreCountedAndRateLimitingCalledOut() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.OK, "slow down", 429, 0)) {
            BenchResult r = Runs.run(Runs.options(server.url("/"), 1, 4, null, 0, Duration.ofSeconds(2)));
            assertThat(r.tally().responses()).isEqualTo(4);
            assertThat(r.tally().errors(ErrorClass.HTTP_429)).isEqualTo(4);
            assertThat(TextReport.render(r)).contains("Rate-limited or shed (429/503): 4");
        }
    }

    @Test
    void clientSideErrnosAreNamedAsTheClients() {
        assertThat(ErrorClassifier.connectFailure(new IOException("connect(..) failed: Too many open files")))
                .isEqualTo(ErrorClass.CLIENT_OUT_OF_FILES);
        assertThat(ErrorClassifier.connectFailure(new RuntimeException("wrap",
                new IOException("bind(..) failed: Cannot assign requested address"))))
                .isEqualTo(ErrorClass.CLIENT_OUT_OF_PORTS);
        assertThat(ErrorClassifier.connectFailure(new ConnectException("boom"))).isEqualTo(ErrorClass.CONNECT_REFUSED);
        assertThat(ErrorClassifier.ioFailure(new IOException("recvAddress(..) failed: Connection reset by peer")))
                .isEqualTo(ErrorClass.RESET);
        assertThat(ErrorClass.CLIENT_OUT_OF_FILES.clientSide()).isTrue();
        assertThat(ErrorClass.CLIENT_OUT_OF_FILES.fix()).contains("ulimit -n");
        assertThat(ErrorClass.CLIENT_OUT_OF_PORTS.fix()).contains("--source-ip 127.0.0.2,127.0.0.3");
    }
}
