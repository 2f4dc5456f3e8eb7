package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BenchCommandTest {

    private HttpServer server;
    private final AtomicInteger served = new AtomicInteger();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
            served.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private int run(String... args) {
        CommandLine cmd = new CommandLine(new BenchCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        return cmd.execute(args);
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    @Test
    void runsAndWritesJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("out.json");
        int code = run("-c", "2", "-n", "20", "--threads", "1", "--json", json.toString(), "--assert", "errors<1%",
                url());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("Transactions:\t\t          20 hits");
        assertThat(Files.readString(json)).contains("\"transaction_rate_per_s\"").contains("\"command_line\"");
    }

    @Test
    void theClientWarmupSendsNothingToTheServerUnderTestAndCanBeTurnedOff() {
        assertThat(run("-c", "2", "-n", "20", "--threads", "1", url())).as(err.toString()).isZero();
        assertThat(served).as("warmed up in-process, then exactly -n requests").hasValue(20);
        assertThat(out.toString()).contains("Transactions:\t\t          20 hits").contains("Client CPU: ");

        assertThat(run("-c", "2", "-n", "20", "--threads", "1", "--no-client-warmup", url())).isZero();
        assertThat(served).hasValue(40);
    }

    @Test
    void theReportRecordsTheCommandOnceAndShellQuoted(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("out.json");
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), "bench", "-c", "1", "-n", "5",
                "--threads", "1", "--no-client-warmup", "-H", "X-Note: it's", "--assert", "p99<10s", "--json",
                json.toString(), url());
        assertThat(code).as(err.toString()).isZero();
        assertThat(Files.readString(json)).contains("\"command_line\": \"portico bench -c 1 -n 5 --threads 1 "
                + "--no-client-warmup -H 'X-Note: it'\\\\''s' --assert 'p99<10s' --json " + json + " " + url() + "\"");
        // run on its own (not under Main), the command still reads as typed
        assertThat(run("-c", "1", "-n", "5", "--threads", "1", "--no-client-warmup", "--json", json.toString(),
                url())).isZero();
        assertThat(Files.readString(json)).contains("\"command_line\": \"portico bench -c 1 -n 5 --threads 1 "
                + "--no-client-warmup --json " + json + " " + url() + "\"");
    }

    @Test
    void assertionResultsAppearInTheTextJsonAndHtmlReports(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("out.json");
        Path html = dir.resolve("out.html");
        int code = run("-c", "1", "-n", "5", "--threads", "1", "--no-client-warmup", "--json", json.toString(),
                "--html", html.toString(),
                "--assert", "errors<1%", "--assert", "rps>100000000", url());
        assertThat(code).isEqualTo(3);
        assertThat(out.toString()).contains("Assertions:\n  pass  errors<1%  (measured errors = 0%, expected < 1%)\n"
                + "  FAIL  rps>100000000  (measured rps = ");
        assertThat(Files.readString(json)).contains("\"expression\": \"rps>100000000\"").contains("\"passed\": false");
        assertThat(Files.readString(html)).contains("<code>errors&lt;1%</code></td><td class=\"pass\">pass</td>")
                .contains("FAIL: 1 of 2 assertion(s) missed");
        assertThat(err.toString()).contains("portico bench: wrote the JSON report to " + json)
                .contains("portico bench: wrote the HTML report to " + html);
    }

    @Test
    void missedAssertionExitsWithThreeAndSaysWhich() {
        int code = run("-c", "1", "-n", "5", "--threads", "1", "--assert", "rps>100000000", url());
        assertThat(code).isEqualTo(3);
        assertThat(err.toString()).contains("assertion failed: rps>100000000");
    }

    @Test
    void usageErrorsExitWithTwo() {
        assertThat(run("-c", "0", url())).isEqualTo(2);
        assertThat(err.toString()).contains("connections: 0 (expected: > 0)");
        assertThat(run("--assert", "p98<1", url())).isEqualTo(2);
        assertThat(run("-c", "x", url())).isEqualTo(2);
        assertThat(run()).isEqualTo(2);
    }

    @Test
    void siegeUrlFileIsUsedRoundRobinWithPostBodies(@TempDir Path dir) throws Exception {
        Path urls = dir.resolve("urls.txt");
        Files.writeString(urls, "# comment\n" + url() + "a\n\n" + url() + "b POST x=1&y=2\n");
        int code = run("-c", "1", "-n", "4", "--threads", "1", "-f", urls.toString());
        assertThat(code).as(err.toString()).isZero();
        assertThat(out.toString()).contains("2 URLs").contains("Successful transactions:           4");
    }
}
