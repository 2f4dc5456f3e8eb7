package io.portico.ratelimit;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.topology.ClusterTopologyRefresh;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redis Cluster store's periodic topology refresh, shared by its lanes' cluster clients: every
 * {@link RedisConnections#TOPOLOGY_REFRESH}, one refresh (a connection to every node, CLUSTER NODES and INFO on
 * each) whose views every lane's client then applies, instead of one refresh per lane: with N event loops Lettuce's
 * own periodic refresh, one per client, made N connections to every node per period.
 *
 * <p>How: the lanes' clients have Lettuce's periodic refresh off and ask their views through {@link #loadViews}.
 * A round, on Lettuce's computation thread (never a loop), asks each client to refresh
 * ({@link RedisClusterClient#refreshPartitionsAsync}, which asks for its views before it returns); the first ask of
 * the round loads them, the others get copies of the same views (each client owns the nodes it keeps). An ask
 * outside a round is a client's own: its first connect, and the adaptive refreshes (a MOVED reply, a lost node),
 * which must not get views older than what triggered them, so each lane still refreshes for itself then.
 */
final class SharedTopologyRefresh implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SharedTopologyRefresh.class);

    /** The views of the round running on this thread; absent outside a round. */
    private static final ThreadLocal<Round> ROUND = new ThreadLocal<>();

    private final List<RedisClusterClient> clients = new ArrayList<>();
    private ScheduledFuture<?> schedule;

    /** One round's views: loaded by its first ask, copied for the others. */
    private static final class Round {
        CompletionStage<Map<RedisURI, Partitions>> views;
    }

    /**
     * A client's ask for the cluster's views, answered by {@code own} (its refresh, on the refresh's I/O thread)
     * or, inside a round that has loaded them, by a copy of that round's.
     */
    static CompletionStage<Map<RedisURI, Partitions>> loadViews(ClusterTopologyRefresh own, Iterable<RedisURI> seeds,
            Duration connectTimeout, boolean discovery) {
        Round round = ROUND.get();
        if (round == null) {
            return own.loadViews(seeds, connectTimeout, discovery);
        }
        if (round.views == null) {
            round.views = own.loadViews(seeds, connectTimeout, discovery);
            return round.views;
        }
        return round.views.thenApply(SharedTopologyRefresh::copy);
    }

    /** Each view's nodes copied: Lettuce keeps the nodes of the view it applies, and may change them. */
    private static Map<RedisURI, Partitions> copy(Map<RedisURI, Partitions> views) {
        Map<RedisURI, Partitions> copied = new LinkedHashMap<>();
        views.forEach((uri, partitions) -> copied.put(uri, partitions.clone()));
        return copied;
    }

    /** A lane's client, refreshed by each round (called while the lanes connect, before {@link #start}). */
    void add(RedisClusterClient client) {
        clients.add(client);
    }

    /** Starts the rounds, every {@code period}, on {@code computation} (Lettuce's own thread, shared by the lanes). */
    void start(EventExecutorGroup computation, Duration period) {
        schedule = computation.scheduleAtFixedRate(this::round, period.toNanos(), period.toNanos(),
                TimeUnit.NANOSECONDS);
    }

    private void round() {
        ROUND.set(new Round());
        try {
            for (RedisClusterClient client : clients) {
                try {
                    client.refreshPartitionsAsync().whenComplete((v, failure) -> {
                        if (failure != null) {
                            log.debug("cluster topology refresh failed", failure);
                        }
                    });
                } catch (RuntimeException e) { // a client shutting down
                    log.debug("cluster topology refresh not started", e);
                }
            }
        } finally {
            ROUND.remove();
        }
    }

    /** Stops the rounds (before the clients are shut down). */
    @Override
    public void close() {
        if (schedule != null) {
            schedule.cancel(false);
        }
    }
}
