package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
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
        assertThat(text).contains("Connection Times (ms)", "Connect:", "Processing:", "Waiting:", "Total:",
                "Percentage of the requests served within a certain time (ms)", "  99.9%", " 99.99%",
                "100% ", "(longest request)");
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonParsesBackWithStableKeysAndSiegeNames() {
        String json = JsonReport.render(result, "portico bench -n 200 \"x\"\n");
        Map<String, Object> m = (Map<String, Object>) MiniJson.parse(json);
        assertThat(m).containsKeys("transaction_rate_per_s", "elapsed_s", "data_transferred_mb", "latency_ms",
                "errors", "timeline", "command_line", "environment", "Transactions", "Availability",
                "Elapsed time", "Transaction rate", "Longest transaction");
        assertThat((Double) m.get("Transactions")).isEqualTo(200.0);
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
    void htmlIsSelfContained() {
        String html = HtmlReport.render(List.of(new HtmlReport.Series("a<b", result),
                new HtmlReport.Series("b", result)), "portico bench compare");
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<svg", "Latency over time", "Throughput over time",
                "Latency by percentile", "a&lt;b p99").doesNotContain("<script src", "http://cdn", "https://");
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
