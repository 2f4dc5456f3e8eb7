package io.portico.route;

/**
 * What the exchange adds to the access log line of a request: the upstream that answered and its time, and a
 * note such as the rate-limit decision. Written on the event loop, read once when the response is complete.
 */
public final class RequestLog {
    private String upstream = "-";
    private long upstreamNanos = -1;
    private String note = "-";

    public void upstream(String address, long nanos) {
        this.upstream = address;
        this.upstreamNanos = nanos;
    }

    public void note(String note) {
        this.note = note;
    }

    public String upstream() {
        return upstream;
    }

    /** Nanoseconds from connect to the end of the upstream response, or -1 when no upstream answered. */
    public long upstreamNanos() {
        return upstreamNanos;
    }

    public String note() {
        return note;
    }
}
