package io.portico.ratelimit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where Caffeine runs the zones' upkeep (draining its read and write buffers, expiry, eviction): one daemon
 * thread, off the event loops, that lets light upkeep gather for up to 20 ms and runs heavy upkeep back to back.
 *
 * <p>Why not the common pool: Caffeine asks for a drain every 16 reads of a busy zone, and each hand-off to a
 * parked pool thread is a wake-up system call on the event loop plus a context switch, about a microsecond per
 * request in all, which made a limited location that passes 12-21% more CPU per request than one without a
 * limit (2-6% with this thread waking every 4 ms, 2% every 20 ms: each wake-up of a thread idle a moment ago costs
 * tens of microseconds on the benchmark VM and can push the load generator onto the event loop's core). Here
 * handing off is a queue insert; while upkeep is light (a hot zone's read buffers) the thread wakes at most every
 * 20 ms, and when there is none it sleeps untimed (no wake-ups at all). A deferred drain
 * only means Caffeine drops some reads from its access bookkeeping meanwhile (its read buffers are lossy by design):
 * values and access times are kept, so decisions and expiry are unchanged, and frequency (which keeps hot clients
 * through a spray) is sampled rather than exact. A run that takes long (a spray's writes and evictions) is
 * followed at once by the next, so the write buffer, which writers on the event loops would otherwise have to
 * drain themselves once it is full, keeps up.
 *
 * <p>Before sleeping untimed, each task run since the last sleep is run once more (and again while that run is
 * heavy). Caffeine hands this executor only its maintenance task (one per cache, idempotent: the zones' caches
 * have a synchronous eviction listener and no loaders or removal listeners), and a maintenance pass that stops at
 * its work limit is not rescheduled on an executor of one's own while the cache's expiry sweep holds its scheduler
 * (up to forget-after, a minute for 1r/m): after a spray the zone would keep more than max-clients until the next
 * request or sweep.
 */
final class ZoneUpkeep implements Executor {
    private static final Logger log = LoggerFactory.getLogger(ZoneUpkeep.class);

    /** Shared by every zone of every server in this JVM. */
    static final ZoneUpkeep SHARED = new ZoneUpkeep(TimeUnit.MILLISECONDS.toNanos(20),
            TimeUnit.MICROSECONDS.toNanos(100));

    private final long gatherNanos;
    private final long heavyNanos;
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    /** The upkeep thread's own: tasks run since it last slept, to run once more before it sleeps again. */
    private final Set<Runnable> ranSinceSleep = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The upkeep thread's own: the settling pass's tasks, kept to be refilled each time rather than allocated. */
    private final List<Runnable> settling = new ArrayList<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private final Thread thread;

    /** {@code heavyNanos}: a run at least this long is followed by the next without waiting. */
    ZoneUpkeep(long gatherNanos, long heavyNanos) {
        this.gatherNanos = gatherNanos;
        this.heavyNanos = heavyNanos;
        this.thread = new Thread(this::loop, "portico-ratelimit-upkeep");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        if (sleeping.get() && sleeping.compareAndSet(true, false)) {
            LockSupport.unpark(thread);
        }
    }

    private void loop() {
        for (;;) {
            long start = System.nanoTime();
            for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
                if (run(task)) {
                    ranSinceSleep.add(task);
                }
            }
            if (System.nanoTime() - start < heavyNanos) {
                LockSupport.parkNanos(this, gatherNanos);
            }
            if (tasks.isEmpty() && !ranSinceSleep.isEmpty()) {
                settling.addAll(ranSinceSleep);
                ranSinceSleep.clear();
                for (Runnable task : settling) { // see the class comment
                    long before = System.nanoTime();
                    if (run(task) && System.nanoTime() - before >= heavyNanos) {
                        ranSinceSleep.add(task); // it found work: there may be more
                    }
                }
                settling.clear();
                continue;
            }
            if (tasks.isEmpty()) {
                sleeping.set(true);
                // execute() either sees sleeping and unparks, or added its task before this check.
                if (tasks.isEmpty()) {
                    LockSupport.park(this);
                }
                sleeping.set(false);
            }
        }
    }

    /** Whether {@code task} completed; one that throws is logged and not run again by the settling pass. */
    private boolean run(Runnable task) {
        try {
            task.run();
            return true;
        } catch (RuntimeException | Error e) { // one failed task must not end every zone's upkeep
            log.warn("rate-limit zone upkeep failed", e);
            return false;
        }
    }
}
