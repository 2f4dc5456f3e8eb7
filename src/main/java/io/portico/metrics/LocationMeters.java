package io.portico.metrics;

import io.netty.handler.codec.http.HttpMethod;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One location's request meters, looked up once when the location is built, so a request pays array reads and
 * counter increments. The counter of a (method, status) pair is taken from its family the first time that pair
 * is seen and kept in an array: a status the location never answers costs nothing, and the label lookup (which
 * allocates) happens once per pair, not per request. Thread-safe: two loops filling one slot get the same child.
 */
public final class LocationMeters {
    /** The method label's values: the common methods by name, anything else as OTHER (bounded cardinality). */
    private static final HttpMethod[] METHODS = {
        HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.PATCH,
        HttpMethod.OPTIONS
    };
    private static final int CODES = 500; // 100..599

    private final String location;
    private final Counter requests;
    private final AtomicReferenceArray<CounterDataPoint> byMethodAndCode =
            new AtomicReferenceArray<>((METHODS.length + 1) * CODES);
    private final DistributionDataPoint duration;
    private final CounterDataPoint received;
    private final CounterDataPoint sent;
    private final LongAdder total;

    LocationMeters(String location, Counter requests, DistributionDataPoint duration, CounterDataPoint received,
            CounterDataPoint sent, LongAdder total) {
        this.total = total;
        this.location = location;
        this.requests = requests;
        this.duration = duration;
        this.received = received;
        this.sent = sent;
    }

    /** A request answered (or abandoned: 499) after {@code nanos}, with {@code bytesSent} of response body. */
    public void answered(HttpMethod method, int status, long nanos, long bytesSent) {
        int m = methodIndex(method);
        int code = status < 100 || status > 599 ? 599 : status;
        int slot = m * CODES + code - 100;
        CounterDataPoint c = byMethodAndCode.get(slot);
        if (c == null) {
            c = requests.labelValues(location, m < METHODS.length ? METHODS[m].name() : "OTHER",
                    Integer.toString(code));
            byMethodAndCode.set(slot, c);
        }
        c.inc();
        total.increment();
        duration.observe(nanos / 1e9);
        if (bytesSent > 0) {
            sent.inc(bytesSent);
        }
    }

    /** Request body bytes read from the client. */
    public void received(long bytes) {
        received.inc(bytes);
    }

    private static int methodIndex(HttpMethod method) {
        for (int i = 0; i < METHODS.length; i++) {
            if (METHODS[i] == method) { // the decoder hands out these constants for the known methods
                return i;
            }
        }
        for (int i = 0; i < METHODS.length; i++) {
            if (METHODS[i].equals(method)) {
                return i;
            }
        }
        return METHODS.length;
    }
}
