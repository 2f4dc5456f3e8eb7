package io.portico.demo;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N platform threads that run requests to completion, blocking as they please: gunicorn's sync workers. Requests
 * beyond N wait, unbounded, in the queue (gunicorn's listen backlog); nothing is rejected while the pool is open.
 * Counts what is in service so tests can check the concurrency without timing anything.
 */
final class SyncWorkers {

    /** A unit of work that owns resources (the request) to give back if it never runs. */
    interface Job extends Runnable {
        void discard();
    }

    private final ThreadPoolExecutor pool;
    private final AtomicInteger inService = new AtomicInteger();
    private final AtomicInteger maxInService = new AtomicInteger();
    private final AtomicInteger completed = new AtomicInteger();

    SyncWorkers(int workers) {
        if (workers <= 0) {
            throw new IllegalArgumentException(String.format("workers: %s (expected: > 0)", workers));
        }
        pool = new ThreadPoolExecutor(
                workers, workers, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), threads());
    }

    private static ThreadFactory threads() {
        AtomicInteger next = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, "demo-app-worker-" + next.incrementAndGet());
            thread.setDaemon(true); // an in-process demo app must never keep the JVM alive on its own
            return thread;
        };
    }

    /** Queues {@code job}; throws {@link java.util.concurrent.RejectedExecutionException} once closed. */
    void execute(Job job) {
        pool.execute(new Queued(job));
    }

    /** What the pool holds, so {@link #close()} can find the jobs that never ran. */
    private final class Queued implements Runnable {
        private final Job job;

        Queued(Job job) {
            this.job = job;
        }

        @Override
        public void run() {
            serve(job);
        }
    }

    private void serve(Job job) {
        int now = inService.incrementAndGet();
        maxInService.accumulateAndGet(now, Math::max);
        try {
            job.run();
        } finally {
            inService.decrementAndGet();
            completed.incrementAndGet();
        }
    }

    int size() {
        return pool.getCorePoolSize();
    }

    int inService() {
        return inService.get();
    }

    int maxInService() {
        return maxInService.get();
    }

    int waiting() {
        return pool.getQueue().size();
    }

    int completed() {
        return completed.get();
    }

    /** Interrupts the jobs in service, discards the waiting ones and waits briefly for the threads to end. */
    void close() {
        List<Runnable> neverRun = pool.shutdownNow();
        for (Runnable queued : neverRun) {
            if (queued instanceof Queued q) {
                q.job.discard();
            }
        }
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
