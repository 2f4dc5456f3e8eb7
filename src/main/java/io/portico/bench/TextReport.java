package io.portico.bench;

import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The text report: siege's summary block with siege's labels, wrk's {@code Requests/sec:} and {@code Transfer/sec:}
 * lines, ab's connection-times and percentile tables (the percentiles extended to 99.9 and 99.99), the error
 * breakdown, the open-loop rate and any warnings. Latencies carry a unit that fits them (us, ms, s), as wrk prints
 * them: siege's {@code 0.00 secs} says nothing about a loopback server that answers in 80 us.
 */
public final class TextReport {

    static final double[] PERCENTILES = {50, 66, 75, 80, 90, 95, 98, 99, 99.9, 99.99, 100};

    private TextReport() {
    }

    public static String render(BenchResult r) {
        StringBuilder sb = new StringBuilder();
        sb.append(siege(r));
        sb.append(wrk(r)).append('\n');
        sb.append(protocol(r)).append('\n');
        sb.append(connectionTimes(r)).append('\n');
        sb.append(percentiles(r.total()));
        String errors = errors(r);
        if (!errors.isEmpty()) {
            sb.append('\n').append(errors);
        }
        if (r.options().openLoop()) {
            sb.append('\n').append(rate(r));
        }
        String client = client(r);
        if (!client.isEmpty()) {
            sb.append('\n').append(client);
        }
        for (String w : r.warnings()) {
            sb.append('\n').append(w).append('\n');
        }
        if (r.stoppedEarly() != null) {
            sb.append('\n').append(r.stoppedEarly()).append('\n');
        }
        return sb.toString();
    }

    /** siege's block, same labels, tabs and widths. */
    public static String siege(BenchResult r) {
        Tally t = r.tally();
        StringBuilder sb = new StringBuilder();
        line(sb, "Transactions:\t\t%12d hits", t.responses());
        line(sb, "Availability:\t\t%12.2f %%", r.availabilityPercent());
        line(sb, "Elapsed time:\t\t%12.2f secs", r.elapsedS());
        line(sb, "Data transferred:\t%12.2f MB", r.megabytes());
        line(sb, "Response time:\t\t%12s", duration(r.meanMs()));
        line(sb, "Transaction rate:\t%12.2f trans/sec", r.transactionRate());
        line(sb, "Throughput:\t\t%12.2f MB/sec", r.megabytes() / r.elapsedS());
        line(sb, "Concurrency:\t\t%12.2f", r.concurrency());
        line(sb, "Successful transactions:%12d", t.successes());
        line(sb, "Failed transactions:\t%12d", t.errors());
        line(sb, "Longest transaction:\t%12s", duration(r.maxMs()));
        line(sb, "Shortest transaction:\t%12s", duration(r.minMs()));
        return sb.toString();
    }

    /**
     * What the connections spoke and, over TLS, what their handshakes cost: mean and p99 over the connections set
     * up (one figure per connection, so keep-alive reuse does not dilute it).
     */
    static String protocol(BenchResult r) {
        StringBuilder sb = new StringBuilder("Protocol:     ").append(r.protocolOrDefault());
        if (r.options().h2()) {
            sb.append(", ").append(r.options().streams()).append(" stream(s) per connection");
        }
        sb.append('\n');
        long n = r.handshake().getTotalCount();
        if (n > 0) {
            sb.append(String.format(Locale.ROOT, "TLS handshake: mean %s, p99 %s (%d connection(s))%n",
                    duration(r.handshakeMeanMs()), duration(r.handshakeMs(99)), n));
        }
        return sb.toString();
    }

    /** wrk's closing lines, so a wrk user's scripts and eyes find the rate where they expect it. */
    static String wrk(BenchResult r) {
        return String.format(Locale.ROOT, "Requests/sec: %12.2f%nTransfer/sec: %10.2fMB%n", r.transactionRate(),
                r.megabytes() / r.elapsedS());
    }

    /** {@code ms} with the unit that fits it: {@code 83.0 us}, {@code 1.25 ms}, {@code 2.10 s}. */
    public static String duration(double ms) {
        if (ms < 1) {
            return String.format(Locale.ROOT, "%.1f us", ms * 1000);
        }
        return ms < 1000 ? String.format(Locale.ROOT, "%.2f ms", ms) : String.format(Locale.ROOT, "%.2f s", ms / 1000);
    }

    /**
     * ab's "Connection Times" table, in one unit for the whole table (us when even the slowest request took under
     * a millisecond, s from 10 s, else ms) so that the columns stay comparable and no cell reads 0.00.
     */
    public static String connectionTimes(BenchResult r) {
        double maxMs = r.maxMs();
        String unit = maxMs < 1 ? "us" : maxMs < 10_000 ? "ms" : "s";
        double perUs = unit.equals("us") ? 1 : unit.equals("ms") ? 1e-3 : 1e-6;
        StringBuilder sb = new StringBuilder("Connection Times (" + unit + ")\n");
        sb.append("              min   mean[+/-sd]  median     max\n");
        row(sb, "Connect:", r.connect(), perUs);
        row(sb, "Processing:", r.processing(), perUs);
        row(sb, "Waiting:", r.waiting(), perUs);
        row(sb, "Total:", r.total(), perUs);
        return sb.toString();
    }

    /** ab's "Percentage of the requests served within a certain time" table, extended, each with its unit. */
    public static String percentiles(Histogram total) {
        StringBuilder sb = new StringBuilder("Percentage of the requests served within a certain time\n");
        for (double p : PERCENTILES) {
            double v = total.getTotalCount() == 0 ? 0
                    : (p == 100 ? total.getMaxValue() : total.getValueAtPercentile(p)) / 1000.0;
            String label = p == Math.rint(p) ? String.format(Locale.ROOT, "%.0f%%", p)
                    : String.format(Locale.ROOT, "%s%%", p);
            sb.append(String.format(Locale.ROOT, " %6s  %10s%s%n", label, duration(v),
                    p == 100 ? " (longest request)" : ""));
        }
        return sb.toString();
    }

    /** The {@code --assert} results, one line each; empty when none was given. */
    public static String assertions(java.util.List<AssertionResult> results) {
        if (results.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder("Assertions:\n");
        results.forEach(a -> sb.append("  ").append(a.line()).append('\n'));
        return sb.toString();
    }

    /** What the client itself cost, and whether it may have set the pace; empty when the JVM does not tell. */
    static String client(BenchResult r) {
        StringBuilder sb = new StringBuilder();
        if (r.clientCpuS() >= 0) {
            sb.append(String.format(Locale.ROOT, "Client CPU: %.2f s", r.clientCpuS()));
            if (r.clientCpuUsPerResponse() >= 0) {
                sb.append(String.format(Locale.ROOT, " (%.2f us per transaction)", r.clientCpuUsPerResponse()));
            }
        }
        if (r.clientBusy() >= 0) {
            sb.append(sb.isEmpty() ? "Client: " : "; ").append(String.format(Locale.ROOT,
                    "busiest event loop %.0f%% busy", 100 * r.clientBusy()));
            if (r.clientBusy() >= CompareRun.CLIENT_BUSY_LIMIT) {
                sb.append(" (the client may have set the pace: add --threads, or load from another machine)");
            }
        }
        ClientPauses pauses = r.clientPauses();
        if (pauses.known()) {
            sb.append(sb.isEmpty() ? "Client: " : "; ").append(pauses.count() == 0 ? "no GC pause"
                    : String.format(Locale.ROOT, "GC paused it %d times, %d ms in all, longest %d ms", pauses.count(),
                            pauses.totalMs(), pauses.longestMs()));
        }
        return sb.isEmpty() ? "" : sb.append('\n').toString();
    }

    static String errors(BenchResult r) {
        Tally t = r.tally();
        Map<ErrorClass, Long> byClass = t.errorsByClass();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Responses by status: 1xx %d, 2xx %d, 3xx %d, 4xx %d, 5xx %d%n",
                t.statusClass(1), t.statusClass(2), t.statusClass(3), t.statusClass(4), t.statusClass(5)));
        if (byClass.isEmpty()) {
            return sb.toString();
        }
        sb.append("Errors by class:\n");
        byClass.forEach((e, n) -> {
            sb.append(String.format(Locale.ROOT, "  %-56s %10d", e.label(), n));
            String first = r.firstMessages().get(e);
            sb.append(first == null ? "" : "   first: " + first).append('\n');
        });
        if (t.clientSideErrors() > 0) {
            sb.append("Client-side limits (a problem of the machine running the benchmark, NOT a server failure):\n");
            byClass.keySet().stream().filter(ErrorClass::clientSide)
                    .forEach(e -> sb.append("  ").append(e.label()).append(": ").append(e.fix()).append('\n'));
        }
        long limited = t.errors(ErrorClass.HTTP_429) + t.errors(ErrorClass.HTTP_503);
        if (limited > 0) {
            sb.append(String.format(Locale.ROOT, "Rate-limited or shed (429/503): %d%n", limited));
        }
        return sb.toString();
    }

    static String rate(BenchResult r) {
        return String.format(Locale.ROOT, "Rate: target %.1f req/s, achieved %.1f req/s (%.1f%%)%s%n",
                r.options().rate(), r.transactionRate(), 100 * r.transactionRate() / r.options().rate(),
                r.tally().unsent() == 0 ? ""
                        : (", %d requests due but never sent (no free connection before the end; counted at their "
                                + "lateness)").formatted(r.tally().unsent()));
    }

    private static void row(StringBuilder sb, String label, Histogram h, double perUs) {
        boolean empty = h.getTotalCount() == 0;
        sb.append(String.format(Locale.ROOT, "%-11s %6.2f %6.2f %6.2f %7.2f %7.2f%n", label,
                empty ? 0 : h.getMinValue() * perUs, empty ? 0 : h.getMean() * perUs,
                empty ? 0 : h.getStdDeviation() * perUs, empty ? 0 : h.getValueAtPercentile(50) * perUs,
                empty ? 0 : h.getMaxValue() * perUs));
    }

    private static void line(StringBuilder sb, String format, Object value) {
        sb.append(String.format(Locale.ROOT, format, value)).append('\n');
    }
}
