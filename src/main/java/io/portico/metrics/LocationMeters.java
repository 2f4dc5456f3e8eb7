package io.portico.metrics;

import io.netty.handler.codec.http.HttpMethod;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import java.util.concurrent.atomic.LongAdder;

/**
 * One location's request meters, looked up once when the location is built, so a request pays a table read and
 * counter increments. The counter of a (method, status) pair is taken from its family the first time that pair
 * is seen and kept in a small hash table of the pairs seen ({@link Answered}): the label lookup (which allocates)
 * happens once per pair, not per request. The table holds only the pairs a location has answered (a few), not a
 * slot for every pair it could: a 4,000-slot array per location (16 KiB) made 10,000 locations hold 160 MiB, which
 * left a 256 MiB heap's young generation a fifth of its size and every request paying for the extra collections
 * (issue 23, item 5). Thread-safe: the table is copied on a miss and published whole; two loops missing one pair
 * get the same child from the family.
 */
public final class LocationMeters {
    /** The method label's values: the common methods by name, anything else as OTHER (bounded cardinality). */
    private static final HttpMethod[] METHODS = {
        HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.PATCH,
        HttpMethod.OPTIONS
    };
    private static final int CODES = 500; // 100..599

    private final String host;
    private final String location;
    private final Counter requests;
    /** The (method, code) pairs answered so far with their counters; replaced whole when a pair is added. */
    private volatile Answered answered = Answered.NONE;
    private final DistributionDataPoint duration;
    private final CounterDataPoint received;
    private final CounterDataPoint sent;
    private final LongAdder total;

    LocationMeters(String host, String location, Counter requests, DistributionDataPoint duration, CounterDataPoint received,
            CounterDataPoint sent, LongAdder total) {
        this.total = total;
        this.host = host;
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
        CounterDataPoint c = answered.get(slot);
        if (c == null) {
            c = firstAnswer(slot, m, code);
        }
        c.inc();
        total.increment();
        duration.observe(nanos / 1e9);
        if (bytesSent > 0) {
            sent.inc(bytesSent);
        }
    }

    private synchronized CounterDataPoint firstAnswer(int slot, int m, int code) {
        CounterDataPoint c = answered.get(slot);
        if (c == null) {
            c = requests.labelValues(host, location, m < METHODS.length ? METHODS[m].name() : "OTHER",
                    Integer.toString(code));
            answered = answered.with(slot, c);
        }
        return c;
    }

    /** How many (method, code) pairs this location has answered: what it holds a counter for. */
    int pairsAnswered() {
        return answered.size;
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

    /**
     * An immutable open-addressing table from a (method, code) slot to its counter, at most half full, so a lookup
     * is a probe or two whatever pairs an upstream answers with (at most 8 x 500).
     */
    private static final class Answered {
        static final Answered NONE = new Answered(new int[4], new CounterDataPoint[4], 0);
        /** slot + 1, 0 for a free entry. */
        private final int[] keys;
        private final CounterDataPoint[] counters;
        final int size;

        private Answered(int[] keys, CounterDataPoint[] counters, int size) {
            this.keys = keys;
            this.counters = counters;
            this.size = size;
        }

        CounterDataPoint get(int slot) {
            int key = slot + 1;
            int mask = keys.length - 1;
            for (int i = (key * 0x9E3779B9) >>> 16 & mask; ; i = (i + 1) & mask) {
                int k = keys[i];
                if (k == key) {
                    return counters[i];
                }
                if (k == 0) {
                    return null;
                }
            }
        }

        Answered with(int slot, CounterDataPoint counter) {
            int capacity = keys.length;
            while ((size + 1) * 2 > capacity) {
                capacity *= 2;
            }
            Answered next = new Answered(new int[capacity], new CounterDataPoint[capacity], size + 1);
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] != 0) {
                    next.put(keys[i], counters[i]);
                }
            }
            next.put(slot + 1, counter);
            return next;
        }

        private void put(int key, CounterDataPoint counter) {
            int mask = keys.length - 1;
            int i = (key * 0x9E3779B9) >>> 16 & mask;
            while (keys[i] != 0) {
                i = (i + 1) & mask;
            }
            keys[i] = key;
            counters[i] = counter;
        }
    }
}
