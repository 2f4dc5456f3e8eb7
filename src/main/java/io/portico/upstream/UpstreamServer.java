package io.portico.upstream;

import io.netty.channel.unix.DomainSocketAddress;
import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamProtocol;
import io.portico.config.UpstreamServerConfig;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * One server of a pool: its address and weight, how many requests it has in flight, and whether it may be chosen.
 * It is out of rotation while passive health has it failed ({@code maxFails} failures within {@code failTimeout}
 * take it out for {@code failTimeout}, as nginx does) or while active health checks have it down. As in nginx, the
 * only server of a pool without backups is never taken out passively: out of rotation, it would turn one failure
 * into {@code failTimeout} of 502s for every request, with nowhere else to send them.
 */
public final class UpstreamServer {
    private final UpstreamServerConfig config;
    private final UpstreamProtocol protocol;
    // Formatted once: every proxied request logs the name, and some send the Host header.
    private final String name;
    private final String hostHeader;
    /** The address as a channel connects to it. */
    private final SocketAddress socketAddress;
    private final int index;
    private final LongSupplier nanoClock;
    private final AtomicInteger active = new AtomicInteger();
    private final ConnectionLimit limit;
    private final boolean passiveHealth;
    private volatile boolean checkedUp = true;
    /** Failures of requests, and changes of health: two logs, so a flood of the first never hides the second. */
    private final ErrorLog failureLog;
    private final ErrorLog healthLog;
    /** Set once when metrics are bound, before traffic; a reload binds the same labels again. */
    private volatile ServerMeters meters = ServerMeters.NONE;

    // Passive health: written under this lock. Every proxied request reads it (available, succeeded) from every
    // event loop, so the common case (no failures) is a volatile read that takes no lock.
    private volatile int fails;
    private long firstFailAt;
    private long downUntil;
    private volatile boolean down;

    /**
     * @param pool the name of the upstream, for the error log
     * @param alone whether this is its pool's only server, with no backup: then failures never take it out
     */
    UpstreamServer(String pool, UpstreamServerConfig config, int index, LongSupplier nanoClock, ConnectionLimit limit,
            boolean alone) {
        this(pool, UpstreamProtocol.HTTP, config, index, nanoClock, limit, alone);
    }

    /** @param protocol what the server speaks; the name carries it when it is not HTTP (uwsgi://127.0.0.1:5000) */
    UpstreamServer(String pool, UpstreamProtocol protocol, UpstreamServerConfig config, int index,
            LongSupplier nanoClock, ConnectionLimit limit, boolean alone) {
        this.config = config;
        this.protocol = protocol;
        this.name = protocol == UpstreamProtocol.HTTP
                ? config.address().toString() : protocol.scheme + "://" + config.address();
        this.hostHeader = config.address().hostHeader();
        this.socketAddress = config.address() instanceof UpstreamAddress.Unix unix
                ? new DomainSocketAddress(unix.path().toFile()) : ((UpstreamAddress.Tcp) config.address()).address();
        this.index = index;
        this.nanoClock = nanoClock;
        this.limit = limit;
        this.passiveHealth = !alone && config.maxFails() > 0;
        String subject = "upstream " + pool + " server " + name;
        this.failureLog = new ErrorLog(subject, nanoClock);
        this.healthLog = new ErrorLog(subject, nanoClock);
    }

    /** What this server's tries are counted in. */
    public ServerMeters meters() {
        return meters;
    }

    public void meters(ServerMeters meters) {
        this.meters = meters;
    }

    /** Where a request's failure on this server is logged (rate limited). */
    public ErrorLog errorLog() {
        return failureLog;
    }

    public UpstreamAddress address() {
        return config.address();
    }

    /** {@link #address} as a channel connects to it: an {@code InetSocketAddress} or a unix socket's. */
    SocketAddress socketAddress() {
        return socketAddress;
    }

    public UpstreamProtocol protocol() {
        return protocol;
    }

    /**
     * The address as nginx's $upstream_addr gives it, host:port or unix:path, after the protocol's scheme when it is
     * not HTTP: the access log, the error log and the metrics name the server so.
     */
    public String name() {
        return name;
    }

    /** The Host header of a request Portico makes up for this server (health checks, {@code host = upstream}). */
    public String hostHeader() {
        return hostHeader;
    }

    public int weight() {
        return config.weight();
    }

    public boolean backup() {
        return config.backup();
    }

    int index() {
        return index;
    }

    public ConnectionLimit limit() {
        return limit;
    }

    /** Requests in flight to this server, for least-conn and random-two. */
    public int active() {
        return active.get();
    }

    public void requestStarted() {
        active.incrementAndGet();
    }

    public void requestEnded() {
        active.decrementAndGet();
    }

    /** Whether the balancer may choose this server now. */
    public boolean available() {
        healthLog.flush(); // a change of health the log's rate held back; one volatile read when none
        return checkedUp && !passivelyDown();
    }

    private boolean passivelyDown() {
        if (!down) {
            return false;
        }
        boolean back = false;
        synchronized (this) {
            if (down && nanoClock.getAsLong() - downUntil >= 0) {
                // nginx lets traffic back after fail_timeout; a new failure takes it out again.
                down = false;
                fails = 0;
                back = true;
            }
        }
        if (back) {
            healthLog.change(false, "back in rotation after fail-timeout " + config.failTimeout().toMillis() + "ms");
        }
        return !back && down;
    }

    /** A connect error, a reset before the response, or a timeout: counts towards {@code maxFails}. */
    public void failed() {
        if (!passiveHealth) {
            return;
        }
        boolean tookOut;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            long window = config.failTimeout().toNanos();
            if (fails == 0 || now - firstFailAt > window) {
                fails = 0;
                firstFailAt = now;
            }
            tookOut = ++fails >= config.maxFails() && !down;
            if (fails >= config.maxFails()) {
                down = true;
                downUntil = now + window;
            }
        }
        if (tookOut) { // logged outside the lock: other event loops read it on every request
            healthLog.change(true, "out of rotation for fail-timeout " + config.failTimeout().toMillis() + "ms after "
                    + config.maxFails() + (config.maxFails() == 1 ? " failure" : " failures") + " (max-fails)");
        }
    }

    /** A complete response: forgets earlier failures. */
    public void succeeded() {
        if (fails == 0) {
            return;
        }
        synchronized (this) {
            if (!down) {
                fails = 0;
            }
        }
    }

    /** The active health check's verdict; {@code why} says what the last probe saw. */
    void checked(boolean up, String why) {
        boolean changed = checkedUp != up;
        this.checkedUp = up;
        if (changed) {
            healthLog.change(!up, up ? "up: health check passed (" + why + ")"
                    : "down: health check failed (" + why + ")");
        }
    }

    /** Writes a change of health the error log's rate held back, once the rate allows. */
    void flushHealthLog() {
        healthLog.flush();
    }

    public boolean checkedUp() {
        return checkedUp;
    }

    @Override
    public String toString() {
        return name;
    }
}
