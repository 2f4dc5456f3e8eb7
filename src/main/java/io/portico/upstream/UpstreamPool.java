package io.portico.upstream;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamProtocol;
import io.portico.config.UpstreamServerConfig;
import io.portico.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One configured upstream: its servers, the balancer over the primaries (and a round-robin over the backups, used
 * only when no primary is usable), and its connection pools, one per event loop.
 */
public final class UpstreamPool implements AutoCloseable {
    private final UpstreamConfig config;
    private final List<UpstreamServer> servers;
    private final Balancer primaries;
    private final Balancer backups;
    private final HashKeyTemplate hashKey;
    private final ConcurrentHashMap<EventLoop, LoopConnections> loops = new ConcurrentHashMap<>();
    private final List<ActiveHealthCheck> checks = new ArrayList<>();

    private final ErrorLog errorLog;
    /** Failures no server had (no live upstreams); set once when metrics are bound. */
    private volatile ServerMeters poolMeters = ServerMeters.NONE;

    public UpstreamPool(UpstreamConfig config, LongSupplier nanoClock) {
        this.config = config;
        List<UpstreamServer> all = new ArrayList<>();
        List<UpstreamServer> primary = new ArrayList<>();
        List<UpstreamServer> backup = new ArrayList<>();
        AtomicInteger queued = new AtomicInteger();
        boolean alone = config.servers().size() == 1;
        for (UpstreamServerConfig sc : config.servers()) {
            // A FastCGI app's child serves one kept connection until it closes: count connections, not requests.
            boolean perConnection = config.protocol() == UpstreamProtocol.FASTCGI && config.keepalive() > 0;
            ConnectionLimit limit = new ConnectionLimit(config.maxConnections(), config.maxQueue(),
                    config.queueTimeout(), queued, perConnection);
            UpstreamServer s =
                    new UpstreamServer(config.name(), config.protocol(), sc, all.size(), nanoClock, limit,
                            alone && !sc.backup());
            all.add(s);
            limit.reclaimer(waiterLoop -> reclaim(s, waiterLoop));
            (sc.backup() ? backup : primary).add(s);
        }
        this.servers = List.copyOf(all);
        this.primaries = Balancer.of(config.balance(), primary);
        this.backups = new SmoothWeightedRoundRobin(backup);
        this.hashKey = HashKeyTemplate.parse(config.hashKey() == null ? "$request_uri" : config.hashKey());
        this.errorLog = new ErrorLog("upstream " + config.name(), nanoClock);
    }

    /** Where failures of the pool as a whole ("no live upstreams") are logged, rate limited. */
    public ErrorLog errorLog() {
        return errorLog;
    }

    /** What the failures of the pool as a whole (no server chosen) are counted in. */
    public ServerMeters poolMeters() {
        return poolMeters;
    }

    public void poolMeters(ServerMeters meters) {
        this.poolMeters = meters;
    }

    public UpstreamConfig config() {
        return config;
    }

    public String name() {
        return config.name();
    }

    public List<UpstreamServer> servers() {
        return servers;
    }

    public HashKeyTemplate hashKey() {
        return hashKey;
    }

    /**
     * The server for one attempt, or null when no primary and no backup is usable (the caller answers 502). A server
     * at its {@code max-connections} is passed over like an unavailable one, as nginx's {@code max_conns} does (so a
     * full primary tier sends requests to the backups); only when every usable server is at its limit is one chosen
     * anyway, by the same policy, and the request queues for its permit.
     */
    public UpstreamServer select(Selection selection) {
        UpstreamServer s = pick(selection);
        return s != null || !selection.skipFull() ? s : pick(selection.queueing());
    }

    private UpstreamServer pick(Selection selection) {
        UpstreamServer s = primaries.pick(selection);
        return s != null ? s : backups.pick(selection);
    }

    /** The connection pool of {@code loop}; call it on that loop. */
    public LoopConnections connections(EventLoop loop) {
        LoopConnections c = loops.get(loop); // first: computeIfAbsent's lambda would be made on every call
        return c != null ? c : loops.computeIfAbsent(loop, l -> new LoopConnections(l, config, servers.size()));
    }

    /** Has each loop but {@code waiterLoop} close an idle connection to {@code s} if requests still wait for it. */
    private void reclaim(UpstreamServer s, EventLoop waiterLoop) {
        for (LoopConnections lc : loops.values()) {
            if (lc.loop() != waiterLoop) {
                try {
                    lc.loop().execute(() -> lc.reclaimIdle(s));
                } catch (RejectedExecutionException loopStopping) {
                    // its connections close with it
                }
            }
        }
    }

    /**
     * Fails when a server cannot be reached from {@code group}'s transport: unix sockets need a native one. Called at
     * start-up so that the problem is an error message, not a 500 on the first request.
     */
    public void requireTransport(EventLoopGroup group) {
        Transport transport = Transport.of(group.next());
        for (UpstreamServer s : servers) {
            if (s.address() instanceof UpstreamAddress.Unix && !transport.hasUnixSockets()) {
                throw new IllegalStateException("upstream " + config.name() + ": server " + s.address()
                        + " is a unix socket, which needs a native transport, epoll or io_uring"
                        + " (the event loops use NIO)");
            }
        }
    }

    /** Starts the active health checks, if configured, each server's on one loop of {@code group}. */
    public synchronized void startHealthChecks(EventLoopGroup group) {
        config.healthCheck().ifPresent(hc -> {
            for (UpstreamServer s : servers) {
                ActiveHealthCheck check = new ActiveHealthCheck(s, hc, group.next());
                checks.add(check);
                check.start();
            }
        });
    }

    /** Stops health checks and closes the idle connections of every loop (on their loops). */
    @Override
    public synchronized void close() {
        checks.forEach(ActiveHealthCheck::stop);
        for (LoopConnections lc : loops.values()) {
            try {
                lc.loop().execute(lc::closeAll);
            } catch (RejectedExecutionException loopAlreadyStopped) {
                // Its channels were closed with the loop.
            }
        }
    }
}
