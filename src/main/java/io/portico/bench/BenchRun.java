package io.portico.bench;

import io.netty.channel.EventLoop;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * One benchmark run. Runs on the caller's thread (which blocks): starts a {@link LoopDriver} per client loop,
 * wakes once a second to drain interval figures into the cumulative ones and the timeline, prints progress, drops
 * the warm-up, stops at the deadline or the request budget, or early when the client itself is failing.
 */
public final class BenchRun {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final BenchOptions options;
    private final ClientLoops clientLoops;
    private final PrintWriter progressOut;
    private final PrintWriter notices;

    /** {@code progressOut}: where the live progress line goes (null: quiet); {@code notices}: warnings. */
    public BenchRun(BenchOptions options, ClientLoops clientLoops, PrintWriter progressOut, PrintWriter notices) {
        this.options = options;
        this.clientLoops = clientLoops;
        this.progressOut = progressOut;
        this.notices = notices;
    }

    /** Runs to the end; throws IllegalArgumentException when a target can't be resolved. */
    public BenchResult run() throws InterruptedException {
        options.requireOneOrigin();
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (RequestTarget t : options.targets()) {
            InetSocketAddress address = new InetSocketAddress(t.host(), t.port());
            if (address.isUnresolved()) {
                throw new IllegalArgumentException("url: %s (host %s does not resolve)".formatted(t.uri(), t.host()));
            }
            addresses.add(address);
        }
        List<RequestTemplate> templates = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
            templates.add(new RequestTemplate(options.targets().get(i), addresses.get(i), options));
        }
        CountDownLatch done = new CountDownLatch(Math.min(clientLoops.threads(), options.connections()));
        ClientTls tls = ClientTls.forOptions(options);
        try (ClientPauseWatch pauses = new ClientPauseWatch()) {
            return run(templates, done, tls, pauses);
        } finally {
            // the loops are done with the templates only once every driver finished (connections closed)
            if (done.getCount() == 0) {
                templates.forEach(RequestTemplate::release);
            }
        }
    }

    private BenchResult run(List<RequestTemplate> templates, CountDownLatch done, ClientTls tls,
            ClientPauseWatch pauses) throws InterruptedException {
        FailurePathClasses.load();
        List<String> warnings = new ArrayList<>();
        String fd = FdLimit.check(options.connections(), FdLimit.soft(), FdLimit.open());
        if (fd != null) {
            warnings.add(fd);
            notices.println(fd);
        }
        Map<ErrorClass, String> firstMessages = LoopStats.newMessageMap();
        List<LoopDriver> drivers = new ArrayList<>();
        List<LoopStats> stats = new ArrayList<>();
        List<EventLoop> loops = clientLoops.loops();
        int n = (int) done.getCount();
        long budget = options.requestBudget();
        AtomicLong permits = options.requests() > 0 && !options.openLoop() ? new AtomicLong(budget) : null;
        long openLimit = options.openLoop() && options.requests() > 0 ? options.requests() : Long.MAX_VALUE;
        int firstClient = 0;
        for (int i = 0; i < n; i++) {
            int conns = options.connections() / n + (i < options.connections() % n ? 1 : 0);
            LoopStats s = new LoopStats(firstMessages);
            long limit = openLimit == Long.MAX_VALUE ? openLimit : openLimit / n + (i < openLimit % n ? 1 : 0);
            long phase = options.openLoop() ? (long) (i * 1e9 / options.rate()) : 0;
            drivers.add(new LoopDriver(loops.get(i), clientLoops.bootstrap(loops.get(i), options.connectTimeout()),
                    templates, options, conns, firstClient, s, permits, done, options.rate() / n, limit, phase, tls));
            stats.add(s);
            firstClient += conns;
        }
        RunClock clock = new RunClock(options, System.nanoTime());
        Collector collector = new Collector(stats, clock, progressOut);
        LoopCpu cpu = new LoopCpu();
        drivers.forEach(d -> d.start(clock.startNs()));
        for (LoopDriver d : drivers) {
            d.loop().submit(() -> { }).awaitUninterruptibly(); // the loops know their thread ids after this
        }
        String stoppedEarly = null;
        boolean measuring = options.warmup().isZero();
        if (measuring) {
            cpu.begin(drivers);
            pauses.begin();
        }
        long deadline = clock.deadlineNs();
        while (true) {
            long now = System.nanoTime();
            long next = Math.min(clock.nextTick(now), deadline);
            boolean finished = done.await(Math.max(0, next - now), TimeUnit.NANOSECONDS);
            now = System.nanoTime();
            if (!measuring && now >= clock.measureStartNs()) {
                collector.discardWarmup(now);
                if (permits != null) {
                    permits.set(budget);
                }
                cpu.begin(drivers);
                pauses.begin();
                measuring = true;
                continue;
            }
            if (finished || now >= deadline) {
                break;
            }
            if (now >= next) {
                collector.tick(now);
                stoppedEarly = collector.earlyStopReason();
                if (stoppedEarly != null) {
                    break;
                }
            }
        }
        drivers.forEach(d -> d.loop().execute(d::stop));
        // in-flight requests end by themselves (answer or timeout sweep); abort only if something is stuck
        if (!done.await(options.timeout().toNanos() + 2 * SECOND, TimeUnit.NANOSECONDS)) {
            drivers.forEach(d -> d.loop().execute(d::abort));
            done.await(5, TimeUnit.SECONDS);
        }
        long end = System.nanoTime();
        // figures recorded by the loops up to 'done' are visible now; one more drain for safety after a hop
        for (LoopDriver d : drivers) {
            d.loop().submit(() -> { }).awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        double clientBusy = cpu.busiest(drivers, end);
        double clientCpuS = cpu.processSeconds();
        ClientPauses clientPauses = pauses.pauses();
        collector.finish(end);
        if (progressOut != null) {
            progressOut.println();
        }
        double elapsed = Math.max(1e-9, (end - clock.measureStartNs()) / 1e9);
        warnings.addAll(StallDetector.warnings(options, collector.total(), collector.timeline()));
        String paused = clientPausesWarning(clientPauses, collector.total());
        if (paused != null) {
            warnings.add(paused);
        }
        return new BenchResult(options, elapsed, collector.tally(), collector.total(), collector.connect(),
                collector.waiting(), collector.processing(), collector.timeline(), warnings, Map.copyOf(firstMessages),
                stoppedEarly, clientBusy, clientCpuS,
                EnvironmentInfo.current(clientLoops.threads(), clientLoops.transport()), collector.handshake(),
                collector.protocol(), clientPauses);
    }

    /**
     * A warning when the client's own longest pause is longer than the run's p99: requests due meanwhile were sent
     * late and counted late (at a fixed rate, from when they were due), so that much of the tail may be the client's.
     */
    static String clientPausesWarning(ClientPauses pauses, Histogram total) {
        if (!pauses.known() || pauses.count() == 0 || total.getTotalCount() == 0) {
            return null;
        }
        double p99Ms = total.getValueAtPercentile(99) / 1000.0;
        if (pauses.longestMs() <= p99Ms) {
            return null;
        }
        return ("warning: this client's own garbage collector stopped it %d times, for up to %d ms, longer than the"
                + " p99 of %.2f ms: requests due meanwhile were sent late, so part of the tail may be the client's"
                + " (give its JVM a larger heap, JAVA_OPTS=-Xmn..., or load from another machine)")
                .formatted(pauses.count(), pauses.longestMs(), p99Ms);
    }
}
