package io.portico.ratelimit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.portico.config.RateLimitZoneConfig;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Redis connection per store URI, shared by the zones that name it (Lettuce pipelines the commands of every
 * thread on one connection). Lettuce runs on its own single I/O thread, off the event loops; its answers hop
 * back to the loop that asked. Connected when the server starts: a store that cannot be reached then stops the
 * start, as a bad configuration would; later it reconnects by itself, and while it is away commands fail at once
 * (they are not queued), so on-store-failure decides without waiting for the timeout.
 */
final class RedisConnections implements AutoCloseable {
    /**
     * The bound on opening a connection, the handshake included. Not the store-timeout, which is a decision's: the
     * first connection also pays for starting Lettuce, and with the default 100 ms a busy machine refused to start
     * with its Redis up.
     */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final Map<URI, StatefulRedisConnection<byte[], byte[]>> connections = new LinkedHashMap<>();
    private final Map<URI, RedisClient> clients = new LinkedHashMap<>();
    private ClientResources resources;

    /**
     * The connection for {@code zone}'s store, opened on first use. {@code commandTimeout}: Lettuce's own bound on
     * a command, the longest {@code store-timeout} of the zones on this store (each zone's is kept by Bucket4j).
     */
    StatefulRedisConnection<byte[], byte[]> connection(RateLimitZoneConfig zone, Duration commandTimeout) {
        URI uri = zone.store().redis();
        StatefulRedisConnection<byte[], byte[]> connection = connections.get(uri);
        if (connection != null) {
            return connection;
        }
        if (resources == null) {
            resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1).build();
        }
        RedisURI redisUri = RedisURI.create(uri.toString()); // also redis-sentinel://, several hosts in one
        redisUri.setTimeout(CONNECT_TIMEOUT); // commands have their own, below
        RedisClient client = RedisClient.create(resources, redisUri);
        client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
                .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                .build());
        try {
            connection = client.connect(ByteArrayCodec.INSTANCE);
        } catch (RedisException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw new IllegalStateException("rate-limits." + zone.name() + ".store: cannot connect to "
                    + redacted(uri) + " (" + reason(e) + ")", e);
        }
        clients.put(uri, client);
        connections.put(uri, connection);
        return connection;
    }

    /** What went wrong, in the words of the innermost exception that has some. */
    private static String reason(Throwable e) {
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

    @Override
    public void close() {
        connections.values().forEach(StatefulRedisConnection::close);
        clients.values().forEach(c -> c.shutdown(0, 2, TimeUnit.SECONDS));
        if (resources != null) {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
        connections.clear();
        clients.clear();
    }
}
