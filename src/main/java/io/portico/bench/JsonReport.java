package io.portico.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The machine-readable report, documented field by field in docs/benchmarking.md ("JSON report"). One name per
 * figure, its unit in the name ({@code transaction_rate_per_s}, {@code latency_ms.p99}, {@code elapsed_s}); the
 * command line once, at the top; the {@code --assert} results. A comparison, plain or the built-in scenarios, is a
 * list of {@code scenarios}, each with its ratios and both sides. {@code schema_version} changes when a field is
 * renamed or removed (version 2 dropped version 1's copies of every figure under siege's labels).
 */
public final class JsonReport {

    static final int SCHEMA_VERSION = 2;

    private JsonReport() {
    }

    public static String render(BenchResult r, String commandLine) {
        return render(r, commandLine, List.of());
    }

    public static String render(BenchResult r, String commandLine, List<AssertionResult> assertions) {
        JsonWriter w = new JsonWriter().beginObject();
        header(w, "bench", commandLine);
        body(w, r);
        assertions(w, assertions);
        w.name("passed").value(assertions.stream().allMatch(AssertionResult::passed));
        return w.endObject().toString();
    }

    /** One comparison as a report of one scenario. */
    public static String renderCompare(CompareResult c, String commandLine) {
        return renderCompare(List.of(new Scenario("", c, List.of(CompareMetric.values()), List.of(), List.of())),
                commandLine);
    }

    /** Every scenario: its ratios B/A with their spread, both sides (merged rounds), notes and assertions. */
    public static String renderCompare(List<Scenario> scenarios, String commandLine) {
        JsonWriter w = new JsonWriter().beginObject();
        header(w, "compare", commandLine);
        w.name("scenarios").beginArray();
        for (Scenario s : scenarios) {
            scenario(w, s);
        }
        w.endArray();
        w.name("refused").value(scenarios.stream().anyMatch(Scenario::refused));
        w.name("passed").value(scenarios.stream().noneMatch(Scenario::failed));
        return w.endObject().toString();
    }

    private static void header(JsonWriter w, String kind, String commandLine) {
        w.name("report").value(kind);
        w.name("schema_version").value(SCHEMA_VERSION);
        w.name("command_line").value(commandLine);
    }

    private static void scenario(JsonWriter w, Scenario s) {
        CompareResult c = s.result();
        w.beginObject();
        w.name("name").value(s.name());
        w.name("rounds").value(c.roundsA().size());
        w.name("refusal").value(c.refusal());
        w.name("headline").value(CompareReport.headline(c));
        w.name("notes").beginArray();
        s.notes().forEach(w::value);
        w.endArray();
        w.name("ratios_b_over_a").beginObject();
        for (CompareMetric m : CompareMetric.values()) {
            w.name(m.key()).beginObject();
            w.name("ratio").value(c.refusal() == null ? c.ratio(m) : Double.NaN);
            w.name("per_round").beginArray();
            c.roundRatios(m).forEach(w::value);
            w.endArray();
            w.endObject();
        }
        w.endObject();
        w.name("a").beginObject();
        w.name("name").value(c.nameA());
        body(w, c.a());
        w.endObject();
        w.name("b").beginObject();
        w.name("name").value(c.nameB());
        body(w, c.b());
        w.endObject();
        assertions(w, s.assertions());
        w.endObject();
    }

    private static void assertions(JsonWriter w, List<AssertionResult> assertions) {
        w.name("assertions").beginArray();
        for (AssertionResult a : assertions) {
            w.beginObject();
            w.name("expression").value(a.expression());
            w.name("metric").value(a.metric());
            w.name("measured").value(a.measured());
            w.name("op").value(a.op());
            w.name("threshold").value(a.threshold());
            w.name("unit").value(a.unit());
            w.name("passed").value(a.passed());
            w.name("reason").value(a.reason());
            w.endObject();
        }
        w.endArray();
    }

    static void body(JsonWriter w, BenchResult r) {
        Tally t = r.tally();
        BenchOptions o = r.options();
        w.name("load_model").value(o.openLoop() ? "open" : "closed");
        w.name("connections").value(o.connections());
        w.name("protocol").value(r.protocolOrDefault());
        w.name("streams_per_connection").value(o.streams());
        w.name("target_rate_per_s").value(o.openLoop() ? o.rate() : Double.NaN);
        w.name("keepalive").value(o.keepAlive());
        w.name("urls").beginArray();
        o.targets().forEach(target -> w.value(target.method() + " " + target.uri()));
        w.endArray();
        w.name("elapsed_s").value(r.elapsedS());
        w.name("warmup_s").value(o.warmup().toMillis() / 1000.0);
        w.name("transactions").value(t.responses());
        w.name("successful_transactions").value(t.successes());
        w.name("failed_transactions").value(t.errors());
        w.name("availability_percent").value(r.availabilityPercent());
        w.name("error_percent").value(r.errorPercent());
        w.name("transaction_rate_per_s").value(r.transactionRate());
        w.name("data_transferred_mb").value(r.megabytes());
        w.name("throughput_mb_per_s").value(r.megabytes() / r.elapsedS());
        w.name("concurrency").value(r.concurrency());
        w.name("connections_opened").value(t.connections());
        w.name("unsent_requests").value(t.unsent());
        w.name("latency_ms").beginObject();
        w.name("min").value(r.minMs());
        w.name("mean").value(r.meanMs());
        w.name("stddev").value(r.total().getTotalCount() == 0 ? 0 : r.total().getStdDeviation() / 1000);
        for (double p : TextReport.PERCENTILES) {
            if (p < 100) {
                w.name("p" + key(p)).value(r.latencyMs(p));
            }
        }
        w.name("max").value(r.maxMs());
        w.endObject();
        Histogram hs = r.handshake();
        w.name("handshake_ms").beginObject(); // TLS, once per connection set up; all 0 without TLS
        w.name("connections").value(hs.getTotalCount());
        w.name("min").value(hs.getTotalCount() == 0 ? 0 : hs.getMinValue() / 1000.0);
        w.name("mean").value(r.handshakeMeanMs());
        w.name("p50").value(r.handshakeMs(50));
        w.name("p99").value(r.handshakeMs(99));
        w.name("max").value(hs.getTotalCount() == 0 ? 0 : hs.getMaxValue() / 1000.0);
        w.endObject();
        w.name("connection_times_ms").beginObject();
        phase(w, "connect", r.connect());
        phase(w, "processing", r.processing());
        phase(w, "waiting", r.waiting());
        phase(w, "total", r.total());
        w.endObject();
        w.name("responses_by_status_class").beginObject();
        for (int d = 1; d <= 5; d++) {
            w.name(d + "xx").value(t.statusClass(d));
        }
        w.endObject();
        w.name("errors").beginObject();
        w.name("total").value(t.errors());
        w.name("client_side").value(t.clientSideErrors());
        w.name("rate_limited").value(t.errors(ErrorClass.HTTP_429) + t.errors(ErrorClass.HTTP_503));
        w.name("by_class").beginObject();
        for (ErrorClass e : ErrorClass.values()) {
            w.name(e.key()).value(t.errors(e));
        }
        w.endObject();
        w.name("first_messages").beginObject();
        for (Map.Entry<ErrorClass, String> m : r.firstMessages().entrySet()) {
            w.name(m.getKey().key()).value(m.getValue());
        }
        w.endObject();
        w.endObject();
        w.name("client_loop_busy_percent").value(r.clientBusy() < 0 ? Double.NaN : 100 * r.clientBusy());
        w.name("client_cpu_seconds").value(r.clientCpuS() < 0 ? Double.NaN : r.clientCpuS());
        w.name("client_cpu_us_per_response")
                .value(r.clientCpuUsPerResponse() < 0 ? Double.NaN : r.clientCpuUsPerResponse());
        ClientPauses pauses = r.clientPauses();
        w.name("client_gc_pauses").value(pauses.known() ? pauses.count() : Double.NaN);
        w.name("client_gc_pause_ms_total").value(pauses.known() ? pauses.totalMs() : Double.NaN);
        w.name("client_gc_pause_ms_longest").value(pauses.known() ? pauses.longestMs() : Double.NaN);
        w.name("stopped_early").value(r.stoppedEarly());
        w.name("warnings").beginArray();
        r.warnings().forEach(w::value);
        w.endArray();
        w.name("timeline").beginArray();
        for (IntervalSample s : r.timeline()) {
            w.beginObject();
            w.name("t_s").value(s.startS());
            w.name("duration_s").value(s.durationS());
            w.name("rps").value(s.rps());
            w.name("responses").value(s.responses());
            w.name("errors").value(s.errors());
            w.name("p50_ms").value(s.p50Ms());
            w.name("p99_ms").value(s.p99Ms());
            w.name("max_ms").value(s.maxMs());
            w.endObject();
        }
        w.endArray();
        EnvironmentInfo env = r.environment();
        w.name("environment").beginObject();
        w.name("cores").value(env.cores());
        w.name("jvm").value(env.jvm());
        w.name("os").value(env.os());
        w.name("fd_limit").value(env.fdLimit());
        w.name("client_threads").value(env.clientThreads());
        w.name("transport").value(env.transport());
        w.endObject();
    }

    private static void phase(JsonWriter w, String name, org.HdrHistogram.Histogram h) {
        boolean empty = h.getTotalCount() == 0;
        w.name(name).beginObject();
        w.name("min").value(empty ? 0 : h.getMinValue() / 1000.0);
        w.name("mean").value(empty ? 0 : h.getMean() / 1000);
        w.name("sd").value(empty ? 0 : h.getStdDeviation() / 1000);
        w.name("median").value(empty ? 0 : h.getValueAtPercentile(50) / 1000.0);
        w.name("max").value(empty ? 0 : h.getMaxValue() / 1000.0);
        w.endObject();
    }

    /** 50 to "50", 99.9 to "999", 99.99 to "9999" (wrk2's and HdrHistogram's usual spelling). */
    static String key(double p) {
        return String.format(Locale.ROOT, "%s", p == Math.rint(p) ? String.valueOf((long) p)
                : String.valueOf(p).replace(".", ""));
    }
}
