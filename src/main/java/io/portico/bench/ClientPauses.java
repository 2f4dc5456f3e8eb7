package io.portico.bench;

/**
 * The client JVM's own stop-the-world collections during the measured part of a run. A request due while the
 * client was stopped is sent late and, at a fixed rate, counted late from when it was due: a pause of the load
 * generator reads as server latency. So the report gives them beside the percentiles they may make. Durations come
 * from the collectors' notifications, in whole milliseconds. {@code count} is -1 when the JVM does not tell.
 */
public record ClientPauses(long count, long totalMs, long longestMs) {

    /** Not measured (no collector notifications, or a result merged from ones that were not). */
    public static final ClientPauses UNKNOWN = new ClientPauses(-1, 0, 0);

    public boolean known() {
        return count >= 0;
    }

    /** Both runs' pauses, as if one run (unknown if either is). */
    ClientPauses plus(ClientPauses other) {
        if (!known() || !other.known()) {
            return UNKNOWN;
        }
        return new ClientPauses(count + other.count, totalMs + other.totalMs, Math.max(longestMs, other.longestMs));
    }
}
