package io.portico.bench;

import java.util.EnumMap;
import java.util.Map;

/** Counts of a run or an interval: responses, successes, bytes, connections and errors by class. Immutable. */
public record Tally(long[] values) {

    static final int RESPONSES = 0;
    static final int SUCCESSES = 1;
    static final int BYTES = 2;
    static final int CONNECTIONS = 3;
    static final int UNSENT = 4;
    static final int STATUS_BASE = 5;
    static final int ERRORS_BASE = STATUS_BASE + 5;
    static final int SIZE = ERRORS_BASE + ErrorClass.values().length;

    public Tally {
        values = values.clone();
    }

    public static Tally empty() {
        return new Tally(new long[SIZE]);
    }

    /** Responses received, whatever their status (siege's "Transactions"). */
    public long responses() {
        return values[RESPONSES];
    }

    /** Responses with a status below 400. */
    public long successes() {
        return values[SUCCESSES];
    }

    /** Response body bytes. */
    public long bytes() {
        return values[BYTES];
    }

    public long connections() {
        return values[CONNECTIONS];
    }

    /** Requests the open-loop schedule owed at the end but never sent. */
    public long unsent() {
        return values[UNSENT];
    }

    /** Responses with status {@code digit}xx. */
    public long statusClass(int digit) {
        return values[STATUS_BASE + digit - 1];
    }

    public long errors(ErrorClass e) {
        return values[ERRORS_BASE + e.ordinal()];
    }

    /** Every failed request: transport failures plus 4xx/5xx responses. */
    public long errors() {
        long sum = 0;
        for (ErrorClass e : ErrorClass.values()) {
            sum += errors(e);
        }
        return sum;
    }

    /** Requests that got no response at all (connect, timeout, reset, close, client-side). */
    public long transportFailures() {
        long sum = 0;
        for (ErrorClass e : ErrorClass.values()) {
            if (!e.name().startsWith("HTTP_")) {
                sum += errors(e);
            }
        }
        return sum;
    }

    public long clientSideErrors() {
        long sum = 0;
        for (ErrorClass e : ErrorClass.values()) {
            if (e.clientSide()) {
                sum += errors(e);
            }
        }
        return sum;
    }

    /** Every request that ended one way or another. */
    public long attempts() {
        return responses() + transportFailures();
    }

    public Map<ErrorClass, Long> errorsByClass() {
        Map<ErrorClass, Long> map = new EnumMap<>(ErrorClass.class);
        for (ErrorClass e : ErrorClass.values()) {
            if (errors(e) > 0) {
                map.put(e, errors(e));
            }
        }
        return map;
    }

    public Tally plus(Tally o) {
        long[] v = values.clone();
        for (int i = 0; i < v.length; i++) {
            v[i] += o.values[i];
        }
        return new Tally(v);
    }

    public Tally minus(Tally o) {
        long[] v = values.clone();
        for (int i = 0; i < v.length; i++) {
            v[i] -= o.values[i];
        }
        return new Tally(v);
    }
}
