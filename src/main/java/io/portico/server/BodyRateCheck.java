package io.portico.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.connection.ReadGate;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * {@code limits.client-body-min-rate}: a request body must average at least {@code minRate} bytes per second over
 * every window of {@code window} (client-body-timeout), a sliding window in {@link #SLOTS} steps. The first check
 * comes one window after the first read that left the body incomplete, so a body has that long to get going;
 * then every window/5. A body that arrives with its head, or in the read that completes it, arms no timer.
 *
 * <p>The idle timeout alone lets a client hold a connection for ever at one byte per timeout; this makes holding
 * it cost bandwidth (Apache mod_reqtimeout's {@code MinRate}; nginx has no equivalent). Reads cost a
 * field add: the counting is timer-driven, one tick per window/5 while a body is being read, no clock read per
 * chunk.
 *
 * <p>Time while Portico itself is not reading (a slow upstream pausing a streamed body, a rate-limit delay, a
 * shared zone's round trip) is not the client's fault: a tick that finds reads paused starts the window again,
 * and so does the first tick after it, so the next check is one full window of reading later. (A pause that
 * begins and ends between two ticks, under a fifth of a window, is not seen.)
 */
final class BodyRateCheck {
    static final int SLOTS = 5;

    private final long tickNanos;
    /** What a window must carry at least. */
    private final long minBytes;
    private final Runnable tooSlow;
    /** Body bytes read since the check started; marks[i]: the count at the tick i (mod SLOTS). */
    private long bytes;
    private final long[] marks = new long[SLOTS];
    private int ticks;
    private boolean pausedAtLastTick;
    private ScheduledFuture<?> timer;
    private ChannelHandlerContext ctx;
    /** A body is being read: between {@link #start} and {@link #stop}. */
    private boolean running;

    /** @param tooSlow what to do with a body below the rate (called on the loop, once; the check is stopped) */
    BodyRateCheck(long minRate, long windowNanos, Runnable tooSlow) {
        this.tickNanos = Math.max(1, windowNanos / SLOTS);
        // bytes per window; saturating, so that an absurd rate refuses every body rather than overflowing
        double perWindow = (double) minRate * windowNanos / TimeUnit.SECONDS.toNanos(1);
        this.minBytes = perWindow >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(perWindow);
        this.tooSlow = tooSlow;
    }

    /** A body starts: count from zero. The timer waits for {@link #arm}. */
    void start(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        stop();
        running = true;
        bytes = 0;
        pausedAtLastTick = false;
        restart();
    }

    /**
     * A read is over and the body is still incomplete: the first check one window from now, unless armed already.
     * Arming here rather than at {@link #start} spares the common body that comes whole with its head a timer.
     */
    void arm() {
        if (running && timer == null) {
            restart();
            timer = ctx.executor().schedule(this::tick, tickNanos, TimeUnit.NANOSECONDS);
        }
    }

    void read(int n) {
        bytes += n;
    }

    /** The body ended, or the connection did. */
    void stop() {
        running = false;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void restart() {
        Arrays.fill(marks, bytes);
        ticks = 0;
    }

    private void tick() {
        timer = null;
        if (!running || !ctx.channel().isActive()) {
            return;
        }
        boolean paused = ReadGate.of(ctx.channel()).isHeld();
        if (paused || pausedAtLastTick) {
            // Portico is holding the body back, or was at the last tick: the window starts again from the first
            // tick that finds reads on, so it holds no time Portico was not reading at a tick
            pausedAtLastTick = paused;
            restart();
        } else {
            int slot = ++ticks % SLOTS;
            if (ticks >= SLOTS && bytes - marks[slot] < minBytes) {
                tooSlow.run();
                return;
            }
            marks[slot] = bytes;
        }
        timer = ctx.executor().schedule(this::tick, tickNanos, TimeUnit.NANOSECONDS);
    }
}
