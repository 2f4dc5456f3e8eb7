package io.portico.bench;

/** One second (or the last partial second) of a run, for the timeline. Latencies in milliseconds. */
public record IntervalSample(double startS, double durationS, long responses, long errors, long bytes,
        double p50Ms, double p99Ms, double maxMs) {

    public double rps() {
        return durationS <= 0 ? 0 : responses / durationS;
    }
}
