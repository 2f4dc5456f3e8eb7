package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.portico.bench.HtmlPage;
import io.portico.bench.MiniJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code portico bench compare} through {@link Main}, against loopback servers: reports, assertions, exit codes. */
class CompareCommandTest {

    private final List<HttpServer> servers = new ArrayList<>();
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @AfterEach
    void stop() {
        servers.forEach(s -> s.stop(0));
    }

    private String serve(String body) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
        servers.add(server);
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
    }

    private int run(String... args) {
        return Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    private static List<String> compare(String a, String b, Path dir, String... more) {
        List<String> args = new ArrayList<>(List.of("bench", "compare", "--a", a, "--b", b, "-c", "1", "-n", "20",
                "--rounds", "1", "--threads", "1", "--no-client-warmup", "--json", dir.resolve("r.json").toString(),
                "--html", dir.resolve("r.html").toString()));
        args.addAll(List.of(more));
        return args;
    }

    @Test
    @SuppressWarnings("unchecked")
    void ratioAssertionsGateTheExitCodeAndAppearInEveryReport(@TempDir Path dir) throws Exception {
        String a = serve("same");
        String b = serve("same");
        int code = run(compare(a, b, dir, "--assert", "throughput>=0.0001", "--assert", "ratio(rps)>=1000",
                "--assert", "b.errors<1%").toArray(String[]::new));
        Map<String, Object> json = (Map<String, Object>) MiniJson.parse(Files.readString(dir.resolve("r.json")));
        Map<String, Object> scenario = ((List<Map<String, Object>>) json.get("scenarios")).get(0);
        if (scenario.get("refusal") != null) {
            // on a saturated machine the single client loop may be the bottleneck: then it must say so, exit 4
            assertThat((String) scenario.get("refusal")).contains("client");
            assertThat(code).isEqualTo(BenchCommand.COMPARISON_REFUSED);
            return;
        }
        assertThat(code).as(err.toString()).isEqualTo(BenchCommand.ASSERT_FAILED);
        assertThat(err.toString()).contains("assertion failed: ratio(rps)>=1000 (measured B/A rps = ")
                .doesNotContain("assertion failed: throughput>=0.0001").contains("wrote the JSON report to ")
                .contains("wrote the HTML report to ");
        assertThat(out.toString()).contains("pass  throughput>=0.0001", "FAIL  ratio(rps)>=1000", "pass  b.errors<1%",
                "note: A, B and this load generator all run on this machine",
                // both stubs listen in this JVM: the process /proc names for their ports
                "Server CPU per response (user + system, /proc, around each round)",
                "the server (pid " + ProcessHandle.current().pid() + ")");
        List<Map<String, Object>> asserts = (List<Map<String, Object>>) scenario.get("assertions");
        assertThat(asserts).extracting(m -> m.get("expression")).containsExactly("throughput>=0.0001",
                "ratio(rps)>=1000", "b.errors<1%");
        assertThat(asserts).extracting(m -> m.get("passed")).containsExactly(true, false, true);
        assertThat(json).containsEntry("passed", false).containsEntry("refused", false);
        assertThat(json.get("command_line")).isEqualTo("portico bench compare --a " + a + " --b " + b
                + " -c 1 -n 20 --rounds 1 --threads 1 --no-client-warmup --json " + dir.resolve("r.json") + " --html "
                + dir.resolve("r.html") + " --assert 'throughput>=0.0001' --assert 'ratio(rps)>=1000' "
                + "--assert 'b.errors<1%'");
        assertThat((Map<String, Object>) scenario.get("a")).doesNotContainKey("command_line");
        String html = Files.readString(dir.resolve("r.html"));
        HtmlPage.parse(html).assertEveryChartHasDataAndRoundTicksFromZero();
        assertThat(html).contains("<code>ratio(rps)&gt;=1000</code></td><td class=\"fail\">fail</td>",
                "<code>throughput&gt;=0.0001</code></td><td class=\"pass\">pass</td>");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRefusedComparisonExitsWithFourAndStillWritesItsReports(@TempDir Path dir) throws Exception {
        int code = run(compare(serve("short"), serve("a much longer body"), dir, "--assert", "ratio(rps)>=0.5")
                .toArray(String[]::new));
        assertThat(code).as(err.toString()).isEqualTo(BenchCommand.COMPARISON_REFUSED);
        assertThat(err.toString()).contains("no ratio: A and B answer differently").contains("(exit 4)");
        assertThat(out.toString()).contains("FAIL  ratio(rps)>=0.5  (not measured: no ratio, A and B answer");
        Map<String, Object> json = (Map<String, Object>) MiniJson.parse(Files.readString(dir.resolve("r.json")));
        assertThat(json).containsEntry("refused", true).containsEntry("passed", false);
        assertThat(Files.readString(dir.resolve("r.html"))).contains("no ratio: A and B answer differently");
    }

    @Test
    @SuppressWarnings("unchecked")
    void theBuiltInScenariosWriteOneSectionPerScenarioAndSayWhatTheyMeasure(@TempDir Path dir) throws Exception {
        int code = run("bench", "compare", "-c", "2", "-t", "1s", "--rounds", "1", "--threads", "1",
                "--no-client-warmup", "--json", dir.resolve("r.json").toString(), "--html",
                dir.resolve("r.html").toString(), "--assert", "b.availability>=0%");
        assertThat(code).as(err.toString()).isIn(0, BenchCommand.COMPARISON_REFUSED);
        Map<String, Object> json = (Map<String, Object>) MiniJson.parse(Files.readString(dir.resolve("r.json")));
        assertThat(json).containsEntry("report", "compare");
        List<Map<String, Object>> scenarios = (List<Map<String, Object>>) json.get("scenarios");
        assertThat(scenarios).hasSize(9);
        assertThat(scenarios).allSatisfy(sc -> {
            assertThat(sc).containsKeys("name", "ratios_b_over_a", "a", "b", "notes", "assertions");
            assertThat((List<Object>) sc.get("assertions")).hasSize(1);
            assertThat((List<String>) sc.get("notes")).anyMatch(n -> n.contains("share its"));
        });
        Map<String, Object> proxied = scenarios.get(1);
        assertThat(proxied.get("name")).isEqualTo("/ direct vs proxied");
        assertThat((List<String>) proxied.get("notes")).anyMatch(n -> n.contains("app / (app + proxy) CPU"))
                .anyMatch(n -> n.matches("Server CPU per response .*: direct: demo app \\d+ us \\+ Portico \\d+ us; "
                        + "proxied: demo app \\d+ us \\+ Portico \\d+ us\\."));
        assertThat(out.toString()).contains("/ direct vs proxied  [A: direct, B: proxied]")
                .contains("note: Direct, a request costs the app's CPU; proxied, it costs the app's and Portico's")
                .contains("pass  b.availability>=0%");
        Map<String, Object> tls = scenarios.get(3);
        assertThat((String) tls.get("name")).startsWith("TLS at the front");
        assertThat(((Map<String, Object>) tls.get("a")).get("protocol")).isEqualTo("HTTP/1.1");
        Map<String, Object> overTls = (Map<String, Object>) tls.get("b");
        assertThat((String) overTls.get("protocol")).startsWith("HTTP/1.1 over TLSv1.");
        assertThat(((Number) ((Map<String, Object>) overTls.get("handshake_ms")).get("connections")).longValue())
                .isPositive();
        // compression: the same page, a sixth of the bytes on the wire, both sides sending Accept-Encoding: gzip
        for (Map<String, Object> gz : scenarios.subList(6, 8)) {
            assertThat((String) gz.get("name")).startsWith("compression: 20 KB HTML page");
            Map<String, Object> bytes = (Map<String, Object>) ((Map<String, Object>) gz.get("ratios_b_over_a"))
                    .get("bytes");
            assertThat(((Number) bytes.get("ratio")).doubleValue()).isBetween(0.05, 0.3);
        }
        Map<String, Object> micro = scenarios.get(8);
        assertThat((String) micro.get("name"))
                .isEqualTo("micro-cache: app /hello/bench direct vs Portico with a 1 s cache");
        String html = Files.readString(dir.resolve("r.html"));
        HtmlPage page = HtmlPage.parse(html);
        page.assertEveryChartHasDataAndRoundTicksFromZero();
        assertThat(page.all("section")).hasSize(9);
        assertThat(page.all("svg")).hasSize(27);
        assertThat(html).contains("<th>scenario</th><th>result</th><th>assertions</th>");
    }

    @Test
    void aBareBoundWithAUnitIsAUsageError() throws Exception {
        String a = serve("x");
        assertThat(run("bench", "compare", "--a", a, "--b", a, "--assert", "p99<5ms")).isEqualTo(BenchCommand.USAGE);
        assertThat(err.toString()).contains("assert: p99<5ms (expected: no unit on a ratio B/A; write b.p99<5ms for "
                + "B's own p99, or p99<=1.2 for a ratio)");
    }

    @Test
    void anUnknownScenarioOrOneWithUrlsIsAUsageError() throws Exception {
        assertThat(run("bench", "compare", "--scenario", "gzip")).isEqualTo(2);
        assertThat(err.toString()).contains("--scenario gzip (expected: without --a/--b, one of static, proxy,"
                + " block, tls, slow-clients, flood, compression, micro-cache)");
        String a = serve("x");
        assertThat(run("bench", "compare", "--a", a, "--b", a, "--scenario", "compression")).isEqualTo(2);
    }
}
