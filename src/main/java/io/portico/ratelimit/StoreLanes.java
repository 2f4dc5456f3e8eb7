package io.portico.ratelimit;

import io.lettuce.core.ConnectionBuilder;
import io.lettuce.core.ConnectionEvents;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.topology.ClusterTopologyRefresh;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.BootstrapConfig;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.resolver.dns.DefaultDnsCache;
import io.netty.resolver.dns.DefaultDnsCnameCache;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.util.AttributeKey;
import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.SucceededFuture;
import io.portico.transport.Transport;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * Where the Lettuce connections of shared zones run. With the server's event loops, one lane per loop: that loop
 * runs the lane's Redis channels, so the loop that asks a store writes the command and reads the reply itself, and
 * a decision costs no thread hop (on Lettuce's own I/O thread each decision woke that thread to write and then the
 * loop to answer, two wake-ups on a machine whose cores Redis and the load share). Without them ({@code portico
 * check --connect}, a zone tested alone), one lane on one Lettuce I/O thread of its own.
 *
 * <p>Lettuce picks its channel class from the transports it finds (epoll before io_uring before NIO), which need
 * not be the server's ({@code transport = io_uring} or {@code nio} with epoll present): a channel of another
 * transport does not register on a loop. Each lane's clients therefore build their channels, and their DNS
 * resolver's, of the classes of the server's transport ({@link StoreLoops}). What Lettuce does besides I/O
 * (reconnect delays, scheduling a cluster's topology refresh, its command timeouts) runs on one thread and one
 * timer shared by the lanes, never on a loop, and the connections a topology refresh opens run on one Lettuce I/O
 * thread of their own ({@link LoopRedisClusterClient}); a node connection's reconnects stay on its loop.
 *
 * <p>Closing ({@link #close}) stops that thread and timer and the resolvers; the loops belong to the server, which
 * stops them after the connections are closed (see {@link RedisConnections#close}).
 */
final class StoreLanes implements AutoCloseable {
    /**
     * Netty's quiet period for Lettuce's own event loop, when it has one: tasks submitted while it stops are still
     * run. With none, a task submitted during shutdown (a listener's notification after a cluster test with a node
     * killed) was rejected, "Failed to submit a listener notification task"; a channel's deregistration rejected so
     * would keep Lettuce's read buffer (released in channelUnregistered).
     */
    private static final long QUIET_PERIOD_MILLIS = 100;

    /**
     * One lane: the loop its channels run on and that loop's transport (both null: Lettuce's own thread) and the
     * resources that say so; on a loop, {@code refresh} runs a cluster's topology refresh (see
     * {@link LoopRedisClusterClient}).
     */
    record Lane(EventExecutor loop, ClientResources resources, Transport transport, ClientResources refresh) {

        RedisClient redisClient(RedisURI uri) {
            return transport == null ? RedisClient.create(resources, uri)
                    : new LoopRedisClient(resources, uri, transport);
        }

        /**
         * A cluster client with {@code options}, which its topology refresh's connections are made with too. On a
         * loop its views come through {@link SharedTopologyRefresh#loadViews} (the store's shared periodic refresh).
         */
        RedisClusterClient clusterClient(List<RedisURI> seeds, ClusterClientOptions options) {
            RedisClusterClient client = transport == null ? RedisClusterClient.create(resources, seeds)
                    : new LoopRedisClusterClient(resources, seeds, transport, refresh, options);
            client.setOptions(options);
            return client;
        }
    }

    private final List<Lane> lanes = new ArrayList<>();
    /** Lettuce's work besides I/O, shared by the lanes on the server's loops; null with Lettuce's own thread. */
    private final EventExecutorGroup computation;
    private final HashedWheelTimer timer;
    private final DnsAddressResolverGroup resolver;
    /**
     * One Lettuce I/O thread of its own for the topology refresh of the lanes' cluster clients, its work besides
     * I/O on {@link #computation} and {@link #timer}; null with Lettuce's own thread.
     */
    private final ClientResources refresh;

    /**
     * Lanes on {@code loops} (the server's), their channels of the classes it names, or one lane on a Lettuce I/O
     * thread when {@code loops} is null.
     */
    StoreLanes(StoreLoops loops) {
        if (loops == null) {
            computation = null;
            timer = null;
            resolver = null;
            refresh = null;
            lanes.add(new Lane(null,
                    DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1).build(), null,
                    null));
            return;
        }
        computation = new DefaultEventExecutorGroup(1, new DefaultThreadFactory("portico-redis", true));
        timer = new HashedWheelTimer(new DefaultThreadFactory("portico-redis-timer", true));
        refresh = DefaultClientResources.builder().ioThreadPoolSize(1).eventExecutorGroup(computation).timer(timer)
                .build();
        resolver = new DnsAddressResolverGroup(new DnsNameResolverBuilder()
                .datagramChannelType(loops.transport().datagramChannel())
                .socketChannelType(loops.transport().socketChannel())
                .cnameCache(new DefaultDnsCnameCache()).resolveCache(new DefaultDnsCache()));
        for (EventExecutor loop : loops.group()) {
            ClientResources resources = DefaultClientResources.builder()
                    .eventLoopGroupProvider(new OneLoop((EventLoop) loop))
                    .eventExecutorGroup(computation)
                    .timer(timer)
                    .addressResolverGroup(resolver)
                    .build();
            lanes.add(new Lane(loop, resources, loops.transport(), refresh));
        }
    }

    List<Lane> lanes() {
        return lanes;
    }

    /**
     * Where a store's shared topology refresh runs ({@link SharedTopologyRefresh}): the thread of Lettuce's work
     * besides I/O, never a loop; null without the server's loops (one lane: Lettuce refreshes it itself).
     */
    EventExecutorGroup computation() {
        return computation;
    }

    /**
     * After the clients: each lane's resources (on the server's loops they own nothing but their event bus), then
     * the shared thread, timer and resolvers, each waited for (never called on an event loop).
     */
    @Override
    public void close() {
        for (Lane lane : lanes) {
            RedisConnections.await(() -> lane.resources.shutdown(QUIET_PERIOD_MILLIS, 2_000, TimeUnit.MILLISECONDS)
                    .get(3, TimeUnit.SECONDS));
        }
        lanes.clear();
        if (refresh != null) {
            RedisConnections.await(() -> refresh.shutdown(QUIET_PERIOD_MILLIS, 2_000, TimeUnit.MILLISECONDS)
                    .get(3, TimeUnit.SECONDS));
        }
        if (resolver != null) {
            resolver.close();
        }
        if (timer != null) {
            timer.stop();
        }
        if (computation != null) {
            RedisConnections.await(() -> computation.shutdownGracefully(QUIET_PERIOD_MILLIS, 2_000,
                    TimeUnit.MILLISECONDS).get(3, TimeUnit.SECONDS));
        }
    }

    /**
     * Hands Lettuce one of the server's loops, whatever group class it asks for (it asks by the transport it
     * detected; the channel class is set to the loop's own by the clients below), and never shuts it down: the
     * server does, after the connections on it are closed.
     */
    private record OneLoop(EventLoop loop) implements EventLoopGroupProvider {
        @Override
        @SuppressWarnings("unchecked")
        public <T extends EventLoopGroup> T allocate(Class<T> type) {
            return (T) loop; // read by Lettuce as an EventLoopGroup only: Bootstrap.group registers on it
        }

        @Override
        public int threadPoolSize() {
            return 1;
        }

        @Override
        public Future<Boolean> release(EventExecutorGroup group, long quietPeriod, long timeout, TimeUnit unit) {
            return new SucceededFuture<>(ImmediateEventExecutor.INSTANCE, true);
        }

        @Override
        public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit unit) {
            return new SucceededFuture<>(ImmediateEventExecutor.INSTANCE, true);
        }
    }

    /** A client whose channels are of the lane loop's transport (Lettuce's own choice is replaced after it). */
    private static final class LoopRedisClient extends RedisClient {
        private final Transport transport;

        LoopRedisClient(ClientResources resources, RedisURI uri, Transport transport) {
            super(resources, uri);
            this.transport = transport;
        }

        @Override
        protected void connectionBuilder(Mono<SocketAddress> address, ConnectionBuilder builder,
                ConnectionEvents events, RedisURI uri) {
            super.connectionBuilder(address, builder, events, uri);
            onLoopTransport(builder, transport);
        }
    }

    /**
     * Replaces the bootstrap Lettuce configured (a bootstrap's channel class is set once) by one with the same
     * loop, options and resolver and the loop's own channel class. Lettuce reads the builder's bootstrap after
     * this (its handler, the connect; a reconnect reuses it), so every channel of the connection is of that class.
     * Lettuce sets its keep-alive timings with the options of the transport it would have chosen itself (epoll's
     * {@code TCP_KEEPIDLE}, ...): each becomes the loop's transport's own ({@link Transport#ownOption}), or is
     * dropped on NIO, where the system's keep-alive timings then apply.
     */
    @SuppressWarnings("unchecked")
    private static void onLoopTransport(ConnectionBuilder builder, Transport transport) {
        BootstrapConfig configured = builder.bootstrap().config();
        Bootstrap bootstrap = new Bootstrap().group(configured.group()).channel(transport.socketChannel());
        if (configured.resolver() != null) {
            bootstrap.resolver(configured.resolver());
        }
        configured.options().forEach((option, value) -> {
            ChannelOption<Object> own = transport.ownOption((ChannelOption<Object>) option);
            if (own != null) {
                bootstrap.option(own, value);
            }
        });
        configured.attrs().forEach((key, value) -> bootstrap.attr((AttributeKey<Object>) key, value));
        builder.bootstrap(bootstrap);
    }

    /**
     * As {@link LoopRedisClient}, for a cluster's node connections. Its topology refresh (periodic, and on a MOVED
     * reply or a lost node) is another client's, on {@link #refresh}'s thread: a refresh opens a connection to
     * every node, asks each for the cluster's view and closes it, and with the node connections on a loop it did
     * so on that loop, in each lane, at the moment a failover already holds requests there (a held request's loop
     * spent a median of 13 ms of CPU in it during a failover, 2.9 ms with the connections on Lettuce's thread).
     * The node connections themselves, and their reconnects, stay on the loop.
     */
    private static final class LoopRedisClusterClient extends RedisClusterClient {
        private final Transport transport;
        /** Makes the refresh's connections; it never connects itself (so never refreshes on its own). */
        private final RefreshClient refresher;

        LoopRedisClusterClient(ClientResources resources, List<RedisURI> seeds, Transport transport,
                ClientResources refresh, ClusterClientOptions options) {
            super(resources, seeds);
            this.transport = transport;
            this.refresher = new RefreshClient(refresh, seeds);
            refresher.setOptions(options); // its connections are the node connections' kind: TLS, trust, timeouts
        }

        @Override
        protected void connectionBuilder(Mono<SocketAddress> address, ConnectionBuilder builder,
                ConnectionEvents events, RedisURI uri) {
            super.connectionBuilder(address, builder, events, uri);
            onLoopTransport(builder, transport);
        }

        /**
         * Called by the constructor of {@link RedisClusterClient}, before {@link #refresher} is set: the refresh
         * reads it when it runs, after the construction (the first one is the connect's).
         */
        @Override
        protected ClusterTopologyRefresh createTopologyRefresh() {
            return (seeds, timeout, discovery) -> SharedTopologyRefresh.loadViews(refresher.refresh, seeds, timeout,
                    discovery);
        }

        @Override
        public CompletableFuture<Void> shutdownAsync(long quietPeriod, long timeout, TimeUnit timeUnit) {
            return super.shutdownAsync(quietPeriod, timeout, timeUnit)
                    .thenCompose(v -> refresher.shutdownAsync(quietPeriod, timeout, timeUnit));
        }
    }

    /** A plain cluster client whose one use is its topology refresh, Lettuce's own, on its resources' thread. */
    private static final class RefreshClient extends RedisClusterClient {
        final ClusterTopologyRefresh refresh;

        RefreshClient(ClientResources resources, List<RedisURI> seeds) {
            super(resources, seeds);
            this.refresh = createTopologyRefresh();
        }
    }
}
