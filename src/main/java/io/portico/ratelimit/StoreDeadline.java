package io.portico.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A store's reply raced against the zone's {@code store-timeout} on the timer of the event loop that asked: the
 * first of the two decides, once. Portico's own bound, counted from when the request asked, so a request never
 * waits for Lettuce's command timeout (a wheel of 100 ms ticks), for the JDK's shared delay thread, or for a
 * command queued behind others; and the loop that holds the request is the one whose timer fires, so a timeout
 * needs no hop back to it. A reply that comes after the deadline is handed to {@code late} (a charge or a slot
 * the store took after all, which the caller gives back).
 */
final class StoreDeadline {
    /** The failure a deadline reports: one instance, without a stack trace of its own worth reading. */
    static final TimeoutException TIMED_OUT = new TimeoutException("no answer within store-timeout");

    private StoreDeadline() {}

    /**
     * {@code onReply} or {@code onFailure} (a failed command, or {@link #TIMED_OUT} at the deadline) decides. With
     * no timer, or one that no longer runs tasks (the loop is shutting down), only the reply decides, and
     * Lettuce's own command timeout bounds it.
     */
    static <T, R> CompletableFuture<R> race(CompletableFuture<T> reply, ScheduledExecutorService timer,
            long timeoutNanos, Function<T, R> onReply, Function<Throwable, R> onFailure, Consumer<T> late) {
        CompletableFuture<R> decided = new CompletableFuture<>();
        AtomicBoolean claimed = new AtomicBoolean();
        ScheduledFuture<?> deadline = null;
        if (timer != null) {
            try {
                deadline = timer.schedule(() -> {
                    if (claimed.compareAndSet(false, true)) {
                        complete(decided, () -> onFailure.apply(TIMED_OUT));
                    }
                }, timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                deadline = null;
            }
        }
        ScheduledFuture<?> cancel = deadline;
        reply.whenComplete((value, failure) -> {
            if (claimed.compareAndSet(false, true)) {
                if (cancel != null) {
                    cancel.cancel(false);
                }
                complete(decided, () -> failure == null ? onReply.apply(value) : onFailure.apply(failure));
            } else if (failure == null) {
                late.accept(value);
            }
        });
        return decided;
    }

    /** A decision that throws fails the future instead of leaving the request held forever. */
    private static <R> void complete(CompletableFuture<R> decided, java.util.function.Supplier<R> decision) {
        try {
            decided.complete(decision.get());
        } catch (RuntimeException e) {
            decided.completeExceptionally(e);
        }
    }
}
