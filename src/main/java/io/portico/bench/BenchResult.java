package io.portico.bench;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * A finished run: what was asked, what happened. Histograms are in microseconds ({@code total} from intended send
 * to last byte; {@code connect}, {@code waiting} = request written to first byte, {@code processing} = total minus
 * connect, as ab defines them). {@code clientBusy} is the busiest client loop's CPU share (0..1);
 * {@code clientCpuS} the CPU seconds the whole client process used in the measured part (JIT and GC included), -1
 * when not measurable; {@code clientPauses} the client JVM's own stop-the-world collections meanwhile.
 */
public record BenchResult(
        BenchOptions options,
        double elapsedS,
        Tally tally,
        Histogram total,
        Histogram connect,
        Histogram waiting,
        Histogram processing,
        List<IntervalSample> timeline,
        List<String> warnings,
        Map<ErrorClass, String> firstMessages,
        String stoppedEarly,
        double clientBusy,
        double clientCpuS,
        EnvironmentInfo environment,
        Histogram handshake,
        String protocol,
        ClientPauses clientPauses) {

    /** A result without TLS figures (the protocol then reads HTTP/1.1) nor the client's pauses. */
    public BenchResult(BenchOptions options, double elapsedS, Tally tally, Histogram total, Histogram connect,
            Histogram waiting, Histogram processing, List<IntervalSample> timeline, List<String> warnings,
            Map<ErrorClass, String> firstMessages, String stoppedEarly, double clientBusy, double clientCpuS,
            EnvironmentInfo environment) {
        this(options, elapsedS, tally, total, connect, waiting, processing, timeline, warnings, firstMessages,
                stoppedEarly, clientBusy, clientCpuS, environment, LoopStats.newHistogram(), null, ClientPauses.UNKNOWN);
    }

    /** What the connections spoke: "HTTP/1.1", "HTTP/2 (h2c)", "HTTP/1.1 over TLSv1.3 (cipher)"... */
    public String protocolOrDefault() {
        return protocol != null ? protocol : (options.h2() ? "HTTP/2" : "HTTP/1.1")
                + (options.tls() ? " over TLS (no connection was set up)" : "");
    }

    /** Mean TLS handshake of the connections set up, in milliseconds (0 when none was). */
    public double handshakeMeanMs() {
        return handshake.getTotalCount() == 0 ? 0 : handshake.getMean() / 1000.0;
    }

    public double handshakeMs(double percentile) {
        return handshake.getTotalCount() == 0 ? 0 : handshake.getValueAtPercentile(percentile) / 1000.0;
    }

    public double transactionRate() {
        return elapsedS <= 0 ? 0 : tally.responses() / elapsedS;
    }

    /** Responses below 400 per 100 requests attempted (siege counts 4xx/5xx as available; this doesn't). */
    public double availabilityPercent() {
        long attempts = tally.attempts();
        return attempts == 0 ? 0 : 100.0 * tally.successes() / attempts;
    }

    /** Failed requests (transport failures plus 4xx/5xx) per 100 attempts. */
    public double errorPercent() {
        long attempts = tally.attempts();
        return attempts == 0 ? 0 : 100.0 * tally.errors() / attempts;
    }

    /** Body bytes per response received, as framed on the wire (a compressed body counts compressed). */
    public double bytesPerResponse() {
        return tally.responses() == 0 ? 0 : (double) tally.bytes() / tally.responses();
    }

    public double megabytes() {
        return tally.bytes() / (1024.0 * 1024.0);
    }

    /** Latency at {@code percentile} (0..100) in milliseconds. */
    public double latencyMs(double percentile) {
        return total.getTotalCount() == 0 ? 0 : total.getValueAtPercentile(percentile) / 1000.0;
    }

    public double meanMs() {
        return total.getTotalCount() == 0 ? 0 : total.getMean() / 1000.0;
    }

    public double maxMs() {
        return total.getTotalCount() == 0 ? 0 : total.getMaxValue() / 1000.0;
    }

    public double minMs() {
        return total.getTotalCount() == 0 ? 0 : total.getMinValue() / 1000.0;
    }

    /** siege's Concurrency: the sum of response times over elapsed time (average requests in flight). */
    public double concurrency() {
        return elapsedS <= 0 ? 0 : total.getMean() * total.getTotalCount() / 1e6 / elapsedS;
    }

    /** Client CPU microseconds per response, or -1 when not measurable. */
    public double clientCpuUsPerResponse() {
        return clientCpuS < 0 || tally.responses() == 0 ? -1 : clientCpuS * 1e6 / tally.responses();
    }

    public boolean clientSideDominated() {
        long attempts = tally.attempts();
        return attempts > 0 && tally.clientSideErrors() * 2 >= attempts;
    }
}
