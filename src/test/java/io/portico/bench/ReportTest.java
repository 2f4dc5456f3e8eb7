package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ReportTest {

    private static BenchResult result;

    @BeforeAll
    static void run() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.OK, "0123456789", 200, 0)) {
            result = Runs.run(Runs.options(server.url("/x?a=1"), 4, 200, null, 0, Duration.ofSeconds(2)));
        }
    }

    @Test
    void siegeBlockHasSiegesLabelsAndCounts() {
        String siege = TextReport.siege(result);
        for (String label : List.of("Transactions:", "Availability:", "Elapsed time:", "Data transferred:",
                "Response time:", "Transaction rate:", "Throughput:", "Concurrency:", "Successful transactions:",
                "Failed transactions:", "Longest transaction:", "Shortest transaction:")) {
            assertThat(siege).contains(label);
        }
        assertThat(siege).contains("Transactions:\t\t         200 hits").contains("Availability:\t\t      100.00 %")
                .contains("Successful transactions:         200").contains("Failed transactions:\t           0");
    }

    @Test
    void abTablesHaveEveryRowAndExtendedPercentiles() {
        String text = TextReport.render(result);
        assertThat(text).containsPattern("Connection Times \\((us|ms)\\)").contains("Connect:", "Processing:",
                "Waiting:", "Total:", "Percentage of the requests served within a certain time\n", "  99.9%",
                " 99.99%", "100% ", "(longest request)");
    }

    @Test
    void wrkUsersFindRequestsPerSecondAndLatenciesCarryAUnitThatFits() {
        String text = TextReport.render(result);
        assertThat(text).containsPattern("\nRequests/sec: +[0-9]+\\.[0-9]{2}\n")
                .containsPattern("\nTransfer/sec: +[0-9]+\\.[0-9]{2}MB\n")
                .containsPattern("Response time:\t\t +[0-9.]+ (us|ms)\n")
                .doesNotContain("secs\n" + "Transaction rate").doesNotContain("0.00 secs");
        assertThat(TextReport.duration(0.083)).isEqualTo("83.0 us");
        assertThat(TextReport.duration(0.9994)).isEqualTo("999.4 us");
        assertThat(TextReport.duration(1.25)).isEqualTo("1.25 ms");
        assertThat(TextReport.duration(2100)).isEqualTo("2.10 s");
        BenchResult fast = ReportFixtures.result(1000, 0);
        assertThat(TextReport.siege(fast)).contains("Response time:\t\t      0.0 us");
        BenchResult slow = ReportFixtures.result(10, 2);
        assertThat(TextReport.connectionTimes(slow)).startsWith("Connection Times (ms)\n")
                .contains("Total:        2.00   2.00   0.00    2.00    2.00");
        assertThat(TextReport.percentiles(slow.total())).contains("    50%     2.00 ms\n");
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonHasOneNamePerFigureAndNoSiegeCopies() {
        String json = JsonReport.render(result, "portico bench -n 200 \"x\"\n");
        Map<String, Object> m = (Map<String, Object>) MiniJson.parse(json);
        assertThat(m).containsKeys("report", "schema_version", "transaction_rate_per_s", "elapsed_s",
                "data_transferred_mb", "latency_ms", "errors", "timeline", "command_line", "environment",
                "assertions", "passed");
        assertThat(m).doesNotContainKeys("Transactions", "Availability", "Elapsed time", "Transaction rate",
                "Longest transaction", "Response time");
        assertThat(m.get("schema_version")).isEqualTo(2.0);
        assertThat((Double) m.get("transactions")).isEqualTo(200.0);
        assertThat((Double) m.get("data_transferred_mb")).isGreaterThan(0);
        assertThat(m.get("command_line")).isEqualTo("portico bench -n 200 \"x\"\n");
        Map<String, Object> latency = (Map<String, Object>) m.get("latency_ms");
        assertThat(latency).containsKeys("p50", "p90", "p99", "p999", "p9999", "max");
        assertThat((Double) latency.get("p99")).isGreaterThanOrEqualTo((Double) latency.get("p50"));
        Map<String, Object> errors = (Map<String, Object>) m.get("errors");
        assertThat((Map<String, Object>) errors.get("by_class")).containsKeys("connect_refused",
                "client_out_of_ports", "client_out_of_files", "read_timeout", "reset", "premature_close", "http_5xx");
        List<Object> timeline = (List<Object>) m.get("timeline");
        assertThat(timeline).isNotEmpty();
        assertThat((Map<String, Object>) timeline.get(0)).containsKeys("rps", "errors", "p50_ms", "p99_ms", "max_ms");
        assertThat((Map<String, Object>) m.get("environment")).containsKeys("cores", "jvm", "fd_limit");
        assertThat((Double) m.get("client_cpu_seconds")).isEqualTo(result.clientCpuS());
        assertThat((Double) m.get("client_cpu_us_per_response")).isEqualTo(result.clientCpuUsPerResponse());
        assertThat(result.clientPauses().known()).isTrue();
        assertThat((Double) m.get("client_gc_pauses")).isEqualTo((double) result.clientPauses().count());
        assertThat((Double) m.get("client_gc_pause_ms_longest")).isEqualTo((double) result.clientPauses().longestMs());
        assertThat((Double) m.get("client_gc_pause_ms_total")).isEqualTo((double) result.clientPauses().totalMs());
    }

    @Test
    @SuppressWarnings("unchecked")
    void theClientsOwnGcPausesAreReportedBesideItsCpu() {
        BenchResult paused = ReportFixtures.withPauses(ReportFixtures.result(1000, 1, 0.5, 0.006),
                new ClientPauses(3, 20, 12));
        assertThat(TextReport.client(paused)).isEqualTo("Client CPU: 0.01 s (6.00 us per transaction); busiest event"
                + " loop 50% busy; GC paused it 3 times, 20 ms in all, longest 12 ms\n");
        assertThat(TextReport.client(ReportFixtures.withPauses(ReportFixtures.result(1000, 1, -1, -1),
                new ClientPauses(0, 0, 0)))).isEqualTo("Client: no GC pause\n");
        Map<String, Object> m = (Map<String, Object>) MiniJson.parse(JsonReport.render(paused, "x"));
        assertThat((Double) m.get("client_gc_pauses")).isEqualTo(3.0);
        assertThat((Double) m.get("client_gc_pause_ms_total")).isEqualTo(20.0);
        assertThat((Double) m.get("client_gc_pause_ms_longest")).isEqualTo(12.0);
        Map<String, Object> unknown = (Map<String, Object>) MiniJson.parse(
                JsonReport.render(ReportFixtures.result(1000, 1, 0.5, 0.006), "x"));
        assertThat(unknown).containsEntry("client_gc_pauses", null);
    }

    @Test
    void aClientPauseLongerThanTheP99IsAWarning() {
        Histogram oneMs = LoopStats.newHistogram();
        oneMs.recordValueWithCount(1000, 1000);
        assertThat(BenchRun.clientPausesWarning(new ClientPauses(2, 15, 12), oneMs)).isEqualTo(
                "warning: this client's own garbage collector stopped it 2 times, for up to 12 ms, longer than the"
                        + " p99 of 1.00 ms: requests due meanwhile were sent late, so part of the tail may be the"
                        + " client's (give its JVM a larger heap, JAVA_OPTS=-Xmn..., or load from another machine)");
        assertThat(BenchRun.clientPausesWarning(new ClientPauses(2, 1, 1), oneMs)).as("within the p99").isNull();
        assertThat(BenchRun.clientPausesWarning(new ClientPauses(0, 0, 0), oneMs)).isNull();
        assertThat(BenchRun.clientPausesWarning(ClientPauses.UNKNOWN, oneMs)).isNull();
        assertThat(BenchRun.clientPausesWarning(new ClientPauses(1, 12, 12), LoopStats.newHistogram()))
                .as("no response").isNull();
    }

    @Test
    void theClientsOwnCpuIsMeasuredOverTheRun() {
        assertThat(result.clientCpuS()).isPositive();
        assertThat(result.clientCpuUsPerResponse()).isEqualTo(result.clientCpuS() * 1e6 / 200);
        assertThat(TextReport.render(result)).contains("Client CPU: ", " us per transaction); busiest event loop ");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aRunWithNoResponseHasNoCpuPerTransaction() {
        BenchResult none = ReportFixtures.result(0, 1, 0.5, 0.006);
        assertThat(TextReport.client(none)).isEqualTo("Client CPU: 0.01 s; busiest event loop 50% busy\n");
        Map<String, Object> m = (Map<String, Object>) MiniJson.parse(JsonReport.render(none, "x"));
        assertThat(m).containsEntry("client_cpu_us_per_response", null);
        assertThat((Double) m.get("client_cpu_seconds")).isEqualTo(0.006);
    }

    @Test
    void theClientLineSaysWhatTheClientCostAndWhetherItSetThePace() {
        assertThat(TextReport.client(ReportFixtures.result(1000, 1, 0.95, 0.006))).isEqualTo(
                "Client CPU: 0.01 s (6.00 us per transaction); busiest event loop 95% busy (the client may have set "
                        + "the pace: add --threads, or load from another machine)\n");
        assertThat(TextReport.client(ReportFixtures.result(1000, 1, 0.5, 0.006))).isEqualTo(
                "Client CPU: 0.01 s (6.00 us per transaction); busiest event loop 50% busy\n");
        assertThat(TextReport.client(ReportFixtures.result(1000, 1, -1, -1))).isEmpty();
    }

    @Test
    void htmlOpensWithTheVerdictThenFullWidthChartsWithData() throws Exception {
        List<AssertionResult> checks = List.of(Assertion.parse("p99<10s").check(result),
                Assertion.parse("rps>100000000").check(result));
        String html = HtmlReport.render(result, "portico bench 'a<b'", checks);
        assertThat(html).startsWith("<!DOCTYPE html>").contains("Latency over time", "Throughput over time",
                "Latency by percentile", "portico bench 'a&lt;b'")
                .doesNotContain("<script", "http://cdn", "https://");
        HtmlPage page = HtmlPage.parse(html);
        page.assertEveryChartHasDataAndRoundTicksFromZero();
        assertThat(page.all("svg")).hasSize(3);
        int verdict = html.indexOf("FAIL: 1 of 2 assertion(s) missed (200 requests");
        assertThat(verdict).isPositive().isLessThan(html.indexOf("<svg"));
        assertThat(html.indexOf("<td class=\"pass\">pass</td>")).isPositive().isLessThan(html.indexOf("<svg"));
        assertThat(html.indexOf("<td class=\"fail\">fail</td>")).isPositive().isLessThan(html.indexOf("<svg"));
        assertThat(html.indexOf("Transactions:")).isGreaterThan(html.lastIndexOf("</svg>"));
    }

    @Test
    void htmlOfAComparisonHasTheRatioTableAndBothRunsOnEachChart() throws Exception {
        CompareResult c = new CompareResult("direct", "proxied", List.of(result), List.of(result), null);
        Scenario s = new Scenario("one", c, List.of(CompareMetric.values()), List.of("shared cores"), List.of())
                .checked(List.of(CompareAssertion.parse("ratio(rps)>=0.9")));
        String html = HtmlReport.renderCompare(List.of(s, s), "portico bench compare");
        HtmlPage page = HtmlPage.parse(html);
        page.assertEveryChartHasDataAndRoundTicksFromZero();
        assertThat(page.all("svg")).hasSize(6);
        assertThat(page.all("section")).hasSize(2);
        assertThat(html).contains("<th>metric</th><th>A</th><th>B</th><th>B/A</th><th>spread over rounds</th>",
                "<td>throughput (req/s)</td>", "x1.00..x1.00", "A: direct p99", "B: proxied p99", "shared cores",
                "<code>ratio(rps)&gt;=0.9</code></td><td class=\"pass\">pass</td>");
        assertThat(html.indexOf("<th>scenario</th>")).isLessThan(html.indexOf("<svg"));
    }

    @Test
    void chartTicksAreRound() {
        assertThat(SvgChart.step(20.6)).isEqualTo(5);
        assertThat(SvgChart.step(15.5)).isEqualTo(5);
        assertThat(SvgChart.step(0.37)).isEqualTo(0.1);
        assertThat(SvgChart.step(9.0)).isEqualTo(2);
        assertThat(SvgChart.step(48_000)).isEqualTo(10_000);
        assertThat(SvgChart.label(0.30000000000000004, 0.1)).isEqualTo("0.3");
        assertThat(SvgChart.label(10_000, 10_000)).isEqualTo("10000");
        String svg = SvgChart.render("t", "s", "ms", List.of(new SvgChart.Line("l", "#000", false,
                new double[] {0, 1, 2}, new double[] {20.6, 15.5, 3})), null);
        assertThat(svg).contains(">0</text>", ">5</text>", ">25</text>").doesNotContain(">20.6<", ">15.5<");
    }

    @Test
    void jsonWriterEscapesControlCharacters() {
        String json = new JsonWriter().beginObject().name("k\"").value("a\\b\u0001\u2028").name("n").value(Double.NaN)
                .endObject().toString();
        Map<String, Object> expected = new java.util.HashMap<>();
        expected.put("k\"", "a\\b\u0001\u2028");
        expected.put("n", null);
        assertThat(MiniJson.parse(json)).isEqualTo(expected);
        assertThat(json).contains("\\u0001").contains("\\u2028").contains("\"n\": null");
    }
}
