package io.portico.exchange;

import java.util.Arrays;

/**
 * What the exchange adds to the access log line of a request: the upstream servers tried and their times, and a
 * note such as the rate-limit decision. Written on the event loop, read once when the response is complete.
 */
public final class RequestLog {
    private String upstream = "-";
    private long upstreamNanos = -1;
    /** The times of the servers tried before the last one; null until a request tries a second server. */
    private long[] earlierNanos;
    private int earlier;
    private String note = "-";

    /**
     * One server tried, in order. Like nginx's $upstream_addr and $upstream_response_time, a request that tried
     * several lists them all: {@code 10.0.0.1:80, 10.0.0.2:80} and their times.
     *
     * @param nanos the time spent on it, or -1 when it never got as far as a connection
     */
    public void upstream(String address, long nanos) {
        if ("-".equals(upstream)) {
            upstream = address;
        } else {
            if (earlierNanos == null) {
                earlierNanos = new long[2];
            } else if (earlier == earlierNanos.length) {
                earlierNanos = Arrays.copyOf(earlierNanos, earlier * 2);
            }
            earlierNanos[earlier++] = upstreamNanos;
            upstream = upstream + ", " + address;
        }
        upstreamNanos = nanos;
    }

    /** How many servers were tried before the last one. */
    public int earlierUpstreams() {
        return earlier;
    }

    /** The time of the {@code i}th server tried (from 0), before the last one; -1 when it has none. */
    public long earlierUpstreamNanos(int i) {
        return earlierNanos[i];
    }

    public void note(String note) {
        this.note = note;
    }

    /** The servers tried, comma-separated, or "-". */
    public String upstream() {
        return upstream;
    }

    /** The last server's nanoseconds from connect to the end of its response or failure, or -1 when none. */
    public long upstreamNanos() {
        return upstreamNanos;
    }

    public String note() {
        return note;
    }
}
