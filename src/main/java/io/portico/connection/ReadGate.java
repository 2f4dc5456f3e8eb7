package io.portico.connection;

import io.netty.channel.Channel;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

/**
 * Whether a client channel (an HTTP/1.1 connection or an HTTP/2 stream) reads: the one switch of its auto-read.
 * A stage that needs the client to stop sending for a while holds the gate for its own {@link Reason} and releases
 * that reason when it is done; the channel reads while no reason is held. No stage turns auto-read on or off
 * itself: when each did, one stage's resume undid another's pause (the rate limiter restoring, after a delay, the
 * "reads off" it had found, which was the keep-alive stage's: the connection never read again).
 *
 * <p>One gate per channel, found with {@link #of}; every method runs on the channel's event loop. Holding a reason
 * already held, or releasing one not held, changes nothing, so a stage need not track whether it holds.
 */
public final class ReadGate {
    /** Why reads are held; each stage has its own, so releasing it frees only what that stage held. */
    public enum Reason {
        /** Keep-alive stage: a pipelined request waits until the response before it is complete. */
        PIPELINED,
        /** A response that closes the connection is going out (a refusal, a 408, Connection: close): for good. */
        CLOSING,
        /** Rate limiter: a request delayed on a timer, or waiting for a shared zone's verdict. */
        RATE_LIMIT,
        /** Proxy: the upstream connection a streamed request body goes to cannot take more yet. */
        UPSTREAM_BUSY,
        /** WebSocket relay: reads only on {@link #demand()}, one at a time, while the upstream keeps up. */
        ON_DEMAND
    }

    private static final AttributeKey<ReadGate> KEY = AttributeKey.valueOf(ReadGate.class, "readGate");
    private static final int ON_DEMAND_BIT = 1 << Reason.ON_DEMAND.ordinal();

    private final Channel channel;
    /** One bit per reason held. */
    private int held;

    private ReadGate(Channel channel) {
        this.channel = channel;
    }

    /** The gate of {@code channel}, made on first use. */
    public static ReadGate of(Channel channel) {
        Attribute<ReadGate> attr = channel.attr(KEY);
        ReadGate gate = attr.get();
        if (gate == null) {
            gate = new ReadGate(channel);
            attr.set(gate);
        }
        return gate;
    }

    /** Stops reading for {@code reason}, until {@link #release} of the same reason (and of every other one held). */
    public void hold(Reason reason) {
        int before = held;
        held |= 1 << reason.ordinal();
        if (before == 0) {
            channel.config().setAutoRead(false);
        }
    }

    /** {@code reason} no longer holds reads; the channel reads again (Netty asks for a read) once none does. */
    public void release(Reason reason) {
        int bit = 1 << reason.ordinal();
        if ((held & bit) == 0) {
            return;
        }
        held &= ~bit;
        if (held == 0) {
            channel.config().setAutoRead(true);
        }
    }

    /** Some stage holds reads: the client cannot be late with bytes nobody reads (the body timers' rule). */
    public boolean isHeld() {
        return held != 0;
    }

    public boolean holds(Reason reason) {
        return (held & (1 << reason.ordinal())) != 0;
    }

    /**
     * The HTTP stages are gone (a switch of protocols): whatever they held goes with them, and the channel reads
     * only on {@link #demand()} from now on.
     */
    public void onDemandOnly() {
        held = ON_DEMAND_BIT;
        channel.config().setAutoRead(false);
    }

    /**
     * One read, for a stage that reads on demand ({@link Reason#ON_DEMAND}): made only when no other reason holds
     * reads, so a stage that holds them for its own reason is never read past.
     */
    public void demand() {
        if (held == ON_DEMAND_BIT) {
            channel.read();
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ReadGate[");
        for (Reason r : Reason.values()) {
            if (holds(r)) {
                b.append(r).append(' ');
            }
        }
        return b.append(held == 0 ? "reading]" : "held]").toString();
    }
}
