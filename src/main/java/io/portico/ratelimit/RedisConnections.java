package io.portico.ratelimit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.portico.config.RateLimitZoneConfig;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Redis connections of shared zones, one set per store URI, shared by the zones that name it (Lettuce pipelines
 * the commands of every caller on one connection; a cluster connection keeps one per master and routes each command
 * by its key's hash slot). One set per lane ({@link StoreLanes}): with the server's event loops, one connection per
 * loop, run by that loop, so a decision's command and reply stay on the loop that asks; without them, one on
 * Lettuce's own I/O thread. Connected when the server starts, off the loops: a store that cannot be reached then
 * stops the start, as a bad configuration would; later it reconnects by itself.
 *
 * <p>While a single server is away its commands fail at once (they are not queued), so on-store-failure decides
 * without waiting for the timeout. A cluster's commands are queued instead while a node's connection is (re)opened,
 * bounded by the command timeout: Lettuce opens a node's connection lazily, on the first command for one of its
 * slots, and with commands rejected while disconnected that first command is refused (the node's endpoint is not
 * connected yet when the command is handed to it). The masters are connected here, at start, and after a failover
 * the new master's first commands wait for its connection instead of failing.
 *
 * <p>Closing waits for each step, in order: the connections, then the clients (which stop reconnecting and the
 * cluster's topology refresh, which opens connections of its own in the background), then the lanes (Lettuce's
 * thread and timer; its event loop when it has one, with a quiet period). A channel still registered when its loop
 * stops never runs its unregistration, where Lettuce releases each connection's read buffer (allocated when the
 * channel registers): the likely cause of the leak report at shutdown in an earlier attempt, which closed the
 * resources without waiting and with no quiet period (not reproduced here; with no quiet period, tasks submitted
 * while the loops stopped were rejected, "Failed to submit a listener notification task", after a cluster test).
 * On the server's loops, the server stops them only after this has closed every channel on them.
 */
final class RedisConnections implements AutoCloseable {
    /**
     * The bound on opening a connection, the handshake included. Not the store-timeout, which is a decision's: the
     * first connection also pays for starting Lettuce, and with the default 100 ms a busy machine refused to start
     * with its Redis up.
     */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** A cluster's topology is read again this often, and at once on a MOVED or ASK reply or a lost node. */
    static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(5);
    /** Adaptive refreshes at most this often (a failover sends many MOVED replies at once). */
    private static final Duration ADAPTIVE_REFRESH_LIMIT = Duration.ofMillis(500);

    /**
     * How long after the longest store-timeout Lettuce still waits for a reply. A zone has decided by then
     * (on-store-failure); a charge or slot Redis made after the decision is given back when its reply comes, which
     * Lettuce's timeout would drop (Redis runs a command it has read even when the client stopped waiting: a frozen
     * server charged a request decided locally, and the client lost a token). A reply later than this is lost to
     * the client: one token or slot fewer until it refills or its lease ends, never one more.
     */
    static final Duration LATE_REPLIES = Duration.ofSeconds(2);

    /**
     * By URI and {@code store-ca}: two zones naming one URI with different CA files (one of them none) each have
     * the connection their own certificate check made, never one the other zone's trust opened.
     */
    private final Map<Target, StoreConnection> byTarget = new LinkedHashMap<>();
    /** Every lane's connection of every store, closed first. */
    private final List<StatefulConnection<byte[], byte[]>> connections = new ArrayList<>();
    private final List<AutoCloseable> clients = new ArrayList<>();
    /** The clusters' shared periodic refreshes, stopped before anything else. */
    private final List<SharedTopologyRefresh> refreshes = new ArrayList<>();
    /** The server's event loops, or null: then {@link #lanes} is one Lettuce I/O thread. */
    private final StoreLoops loops;
    private StoreLanes lanes;

    /** Connections on Lettuce's own I/O thread ({@code portico check --connect}, zones tested alone). */
    RedisConnections() {
        this(null);
    }

    /** One connection per store and event loop of {@code loops} (the server's), or as {@link #RedisConnections()}. */
    RedisConnections(StoreLoops loops) {
        this.loops = loops;
    }

    /**
     * The connection for a zone's store, opened on first use (one per URI and store-ca). {@code zone}: the zone's
     * config key, for messages.
     * {@code longestStoreTimeout}: the longest {@code store-timeout} of the zones on this store. Each zone keeps its
     * own on the event loop's timer ({@link StoreDeadline}); Lettuce's bound on a command is {@link #LATE_REPLIES}
     * longer, so that a reply after a zone's timeout still arrives and what it charged is given back.
     */
    StoreConnection connection(String zone, RateLimitZoneConfig.Store store, Duration longestStoreTimeout) {
        Duration commandTimeout = longestStoreTimeout.plus(LATE_REPLIES);
        URI uri = store.redis();
        Target target = new Target(uri, store.ca());
        StoreConnection connection = byTarget.get(target);
        if (connection != null) {
            return connection;
        }
        if (lanes == null) {
            lanes = new StoreLanes(loops);
        }
        try {
            List<StoreConnection.Lane> opened = new ArrayList<>();
            SharedTopologyRefresh refresh = store.cluster() && lanes.computation() != null
                    ? new SharedTopologyRefresh() : null;
            if (refresh != null) {
                refreshes.add(refresh);
            }
            for (StoreLanes.Lane lane : lanes.lanes()) {
                opened.add(store.cluster() ? connectCluster(lane, store, commandTimeout, refresh)
                        : connectServer(lane, store, commandTimeout));
            }
            if (refresh != null) {
                refresh.start(lanes.computation(), TOPOLOGY_REFRESH);
            }
            connection = new StoreConnection(opened);
        } catch (RedisException | IllegalArgumentException e) {
            throw new IllegalStateException(zone + ".store: cannot connect to " + redacted(uri) + " (" + reason(e)
                    + ")", e);
        }
        byTarget.put(target, connection);
        return connection;
    }

    /** What one connection is for: the store's URI and the CA file its certificate check trusts (or null). */
    private record Target(URI uri, java.nio.file.Path ca) {}

    private StoreConnection.Lane connectServer(StoreLanes.Lane lane, RateLimitZoneConfig.Store store,
            Duration commandTimeout) {
        RedisURI redisUri = RedisURI.create(store.redis().toString()); // also redis-sentinel://, several hosts in one
        redisUri.setTimeout(CONNECT_TIMEOUT); // commands have their own, below
        if (store.tls()) {
            redisUri.setVerifyPeer(SslVerifyMode.FULL);
        }
        RedisClient client = lane.redisClient(redisUri);
        client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .sslOptions(ssl(store))
                .build());
        try {
            StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
            clients.add(() -> client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(3, TimeUnit.SECONDS));
            connections.add(connection);
            return new StoreConnection.Lane(lane.loop(), connection, null);
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * {@code refresh}: the store's shared periodic refresh, which then refreshes this lane's client (Lettuce's own
     * periodic refresh off); null: Lettuce's own, every {@link #TOPOLOGY_REFRESH}.
     */
    private StoreConnection.Lane connectCluster(StoreLanes.Lane lane, RateLimitZoneConfig.Store store,
            Duration commandTimeout, SharedTopologyRefresh refresh) {
        RedisClusterClient client = lane.clusterClient(seeds(store), ClusterClientOptions.builder()
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(refresh == null)
                        .refreshPeriod(TOPOLOGY_REFRESH)
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_LIMIT)
                        .refreshTriggersReconnectAttempts(1)
                        .build())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .sslOptions(ssl(store))
                .build());
        try {
            StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
            for (RedisClusterNode node : connection.getPartitions()) {
                if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                    // opened now, not by the first decision; by address, the key slot routing looks them up by
                    // (a connection asked for by node id is another one)
                    connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
                }
            }
            clients.add(() -> client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(3, TimeUnit.SECONDS));
            connections.add(connection);
            if (refresh != null) {
                refresh.add(client);
            }
            return new StoreConnection.Lane(lane.loop(), null, connection);
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The seed nodes of {@code redis-cluster://[[USER]:PASSWORD@]H1:P1,H2:P2...}, with TLS for rediss-cluster. */
    static List<RedisURI> seeds(RateLimitZoneConfig.Store store) {
        String authority = store.redis().getRawAuthority();
        int at = authority.lastIndexOf('@');
        String user = null;
        String password = null;
        if (at >= 0) {
            String info = authority.substring(0, at);
            int colon = info.indexOf(':');
            user = colon < 0 ? null : decode(info.substring(0, colon));
            password = decode(colon < 0 ? info : info.substring(colon + 1));
            user = user == null || user.isEmpty() ? null : user;
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String node : authority.substring(at + 1).split(",")) {
            int colon = node.lastIndexOf(':');
            RedisURI.Builder b = RedisURI.builder()
                    .withHost(node.substring(0, colon))
                    .withPort(Integer.parseInt(node.substring(colon + 1)))
                    .withTimeout(CONNECT_TIMEOUT)
                    .withSsl(store.tls());
            if (store.tls()) {
                b.withVerifyPeer(SslVerifyMode.FULL);
            }
            if (password != null) {
                if (user != null) {
                    b.withAuthentication(user, password);
                } else {
                    b.withPassword(password.toCharArray());
                }
            }
            seeds.add(b.build());
        }
        return seeds;
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /** The JDK's engine; with store-ca, only the certificates in that file are trusted. */
    private static SslOptions ssl(RateLimitZoneConfig.Store store) {
        SslOptions.Builder b = SslOptions.builder().jdkSslProvider().handshakeTimeout(CONNECT_TIMEOUT);
        if (store.ca() != null) {
            b.trustManager(store.ca().toFile());
        }
        return b.build();
    }

    /** What went wrong, in the words of the innermost exception that has some. */
    static String reason(Throwable e) {
        String reason = e.getClass().getSimpleName();
        for (Throwable t = e; t != null; t = t.getCause()) {
            reason = t.getMessage() != null ? t.getMessage() : reason;
        }
        return reason;
    }

    /** The URI without its password, for messages. */
    static String redacted(URI uri) {
        String authority = uri.getRawAuthority();
        String hosts = authority.substring(authority.lastIndexOf('@') + 1);
        return uri.getScheme() + "://" + hosts + (uri.getRawPath() == null ? "" : uri.getRawPath())
                + (uri.getRawFragment() == null ? "" : "#" + uri.getRawFragment());
    }

    /** Connections, then clients, then lanes, each waited for (see the class comment). Never on an event loop. */
    @Override
    public void close() {
        refreshes.forEach(SharedTopologyRefresh::close);
        refreshes.clear();
        for (StatefulConnection<byte[], byte[]> connection : connections) {
            await(() -> connection.closeAsync().get(2, TimeUnit.SECONDS));
        }
        clients.forEach(RedisConnections::await);
        if (lanes != null) {
            lanes.close();
            lanes = null;
        }
        byTarget.clear();
        connections.clear();
        clients.clear();
    }

    static void await(AutoCloseable step) {
        try {
            step.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // closing anyway: a step that did not finish in time leaves nothing the next one needs
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
