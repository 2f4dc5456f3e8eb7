package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.bench.BenchOptions;
import io.portico.bench.BenchResult;
import io.portico.bench.BenchRun;
import io.portico.bench.ClientLoops;
import io.portico.bench.RequestTarget;
import io.portico.server.PorticoServer;
import io.portico.testing.TestCertificates;
import io.portico.testing.TestServers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code portico bench} over https and HTTP/2 against a real Portico on loopback: a TLS listener (ALPN h2 and
 * http/1.1) with a generated certificate and an h2c listener, one 1000-byte static file.
 */
class BenchTlsTest {
    static final int SIZE = 1000;
    static Path dir;
    static PorticoServer server;
    static int tlsPort;
    static int h2cPort;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("portico-bench-tls");
        TestCertificates.Issued cert = TestCertificates.issue(dir, "bench", List.of("a.test"));
        Files.createDirectories(dir.resolve("www"));
        Files.write(dir.resolve("www/k.bin"), new byte[SIZE]);
        server = TestServers.start("listen = [ { address = \"127.0.0.1:0\", tls { certificates = [ { cert = \""
                + cert.cert() + "\", key = \"" + cert.key() + "\" } ] } },"
                + " { address = \"127.0.0.1:0\", http2 = on } ]\n"
                + "locations = [ { path = \"/files/\", alias = \"" + dir.resolve("www") + "/\" } ]\n");
        tlsPort = server.localAddresses().get(0).getPort();
        h2cPort = server.localAddresses().get(1).getPort();
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private int bench(String... args) {
        CommandLine cmd = new CommandLine(new BenchCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        return cmd.execute(args);
    }

    private static BenchResult run(String url, int connections, long requests, boolean h2, int streams,
            double rate, Duration duration) throws InterruptedException {
        BenchOptions o = new BenchOptions(List.of(RequestTarget.of(url, "GET", null)), connections, requests, 0,
                duration, true, List.of(), Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(2), rate,
                List.of(), 1, true, h2, streams);
        try (ClientLoops loops = new ClientLoops(1)) {
            return new BenchRun(o, loops, null, new PrintWriter(new StringWriter())).run();
        }
    }

    private static String https() {
        return "https://127.0.0.1:" + tlsPort + "/files/k.bin";
    }

    @Test
    void httpsWithInsecureCountsEveryResponseAndReportsTheHandshake(@TempDir Path tmp) throws Exception {
        Path json = tmp.resolve("out.json");
        Path html = tmp.resolve("out.html");
        int code = bench("-c", "2", "-n", "40", "--threads", "1", "--no-client-warmup", "--insecure", "--json",
                json.toString(), "--html", html.toString(), https());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("Transactions:\t\t          40 hits")
                .contains("Protocol:     HTTP/1.1 over TLSv1.3").contains("TLS handshake: mean ")
                .contains("(2 connection(s))");
        String j = Files.readString(json);
        assertThat(j).contains("\"protocol\": \"HTTP/1.1 over TLSv1.3").contains("\"handshake_ms\": {")
                .contains("\"connections\": 2,").contains("\"2xx\": 40").contains("\"connections_opened\": 2");
        assertThat(Files.readString(html)).contains("TLS handshake: mean ");

        BenchResult r = run(https(), 2, 30, false, 1, 0, null);
        assertThat(r.tally().responses()).isEqualTo(30);
        assertThat(r.tally().statusClass(2)).isEqualTo(30);
        assertThat(r.tally().bytes()).isEqualTo(30L * SIZE);
        assertThat(r.tally().connections()).as("keep-alive: one TLS connection per client").isEqualTo(2);
        assertThat(r.handshake().getTotalCount()).isEqualTo(2);
        assertThat(r.handshakeMeanMs()).isPositive();
        assertThat(r.handshakeMs(99)).isPositive();
    }

    @Test
    void httpsWithoutInsecureRefusesTheUntrustedCertificate() {
        int code = bench("-c", "1", "-n", "5", "--threads", "1", "--no-client-warmup", https());
        assertThat(code).as("exit 1: the run could not be done").isEqualTo(BenchCommand.RUN_FAILED);
        assertThat(out.toString()).contains("Transactions:\t\t           0 hits").contains("TLS handshake failed")
                .contains("--insecure");
    }

    @Test
    void noKeepaliveOverTlsHandshakesForEveryRequest() throws Exception {
        BenchOptions o = new BenchOptions(List.of(RequestTarget.of(https(), "GET", null)), 2, 20, 0, null, false,
                List.of(), Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(2), 0, List.of(), 1, true,
                false, 1);
        BenchResult r;
        try (ClientLoops loops = new ClientLoops(1)) {
            r = new BenchRun(o, loops, null, new PrintWriter(new StringWriter())).run();
        }
        assertThat(r.tally().responses()).isEqualTo(20);
        assertThat(r.tally().statusClass(2)).isEqualTo(20);
        assertThat(r.handshake().getTotalCount()).isEqualTo(20);
    }

    @Test
    void h2OverTlsMultiplexesStreams() throws Exception {
        int code = bench("--h2", "-c", "2", "-m", "4", "-n", "80", "--threads", "1", "--no-client-warmup",
                "--insecure", https());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("Transactions:\t\t          80 hits")
                .contains("Protocol:     HTTP/2 over TLSv1.3").contains("4 stream(s) per connection")
                .contains("TLS handshake: mean ");

        BenchResult r = run(https(), 2, 80, true, 4, 0, null);
        assertThat(r.tally().responses()).isEqualTo(80);
        assertThat(r.tally().statusClass(2)).isEqualTo(80);
        assertThat(r.tally().bytes()).isEqualTo(80L * SIZE);
        assertThat(r.tally().connections()).as("8 streams over 2 connections").isEqualTo(2);
        assertThat(r.handshake().getTotalCount()).isEqualTo(2);
        assertThat(r.tally().errors()).isZero();
    }

    @Test
    void h2cWithPriorKnowledge() throws Exception {
        BenchResult r = run("http://127.0.0.1:" + h2cPort + "/files/k.bin", 1, 60, true, 4, 0, null);
        assertThat(r.tally().responses()).isEqualTo(60);
        assertThat(r.tally().statusClass(2)).isEqualTo(60);
        assertThat(r.tally().bytes()).isEqualTo(60L * SIZE);
        assertThat(r.tally().connections()).isEqualTo(1);
        assertThat(r.protocol()).isEqualTo("HTTP/2 (h2c, prior knowledge)");
        assertThat(r.handshake().getTotalCount()).as("no TLS, no handshake").isZero();

        BenchResult missing = run("http://127.0.0.1:" + h2cPort + "/files/none", 1, 12, true, 4, 0, null);
        assertThat(missing.tally().responses()).isEqualTo(12);
        assertThat(missing.tally().statusClass(4)).isEqualTo(12);
    }

    @Test
    void h2OpenLoopSendsAtTheRate() throws Exception {
        BenchResult r = run(https(), 2, 0, true, 4, 200, Duration.ofSeconds(1));
        assertThat(r.tally().responses()).isBetween(150L, 250L);
        assertThat(r.tally().errors()).isZero();
    }

    @Test
    void compareProbesHttpsWithInsecureAndRunsH2SidesOnTwoOrigins() {
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "bench", "compare", "--a",
                https(), "--b", "http://127.0.0.1:" + h2cPort + "/files/k.bin", "--h2", "-m", "2", "--insecure",
                "-c", "1", "-n", "20", "--rounds", "1", "--threads", "1", "--no-client-warmup");
        String all = out.toString() + err;
        assertThat(all).doesNotContain("probe request failed").doesNotContain("answer differently")
                .doesNotContain("--h2: ");
        assertThat(code).as(all).isIn(0, BenchCommand.COMPARISON_REFUSED); // 4: the client may set the pace here
        assertThat(all).contains("A: Protocol:     HTTP/2 over TLSv1.3").contains("B: Protocol:     HTTP/2 (h2c, prior knowledge)")
                .contains("TLS handshake: mean ");
    }

    @Test
    void h2WithUrlsOnTwoOriginsIsAUsageError() {
        assertThat(bench("--h2", "--insecure", https(), "http://127.0.0.1:" + h2cPort + "/files/k.bin"))
                .isEqualTo(BenchCommand.USAGE);
        assertThat(err.toString()).contains("--h2: http://127.0.0.1:");
    }

    @Test
    void streamsWithoutH2AreRefused() {
        assertThat(bench("-m", "4", "--insecure", https())).isEqualTo(BenchCommand.USAGE);
        assertThat(err.toString()).contains("with --h2");
    }
}
