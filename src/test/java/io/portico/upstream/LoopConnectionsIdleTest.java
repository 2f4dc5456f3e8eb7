package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The idle timer of pooled connections: one per connection, left running while the connection is in use. */
class LoopConnectionsIdleTest {
    private final EventLoop loop = new DefaultEventLoop();
    private final UpstreamServerConfig serverConfig = new UpstreamServerConfig(
            new UpstreamAddress.Tcp("127.0.0.1", new InetSocketAddress("127.0.0.1", 9)), 1, 0,
            Duration.ofSeconds(10), false);
    private final UpstreamConfig config = new UpstreamConfig("app", List.of(serverConfig),
            UpstreamConfig.Balance.ROUND_ROBIN, "$request_uri", 8, Duration.ofMillis(100), 0, 0, Duration.ofSeconds(1),
            Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(5), 1, Optional.empty(), 16 * 1024, 100);
    private final UpstreamServer server = new UpstreamServer("app", serverConfig, 0, System::nanoTime,
            new ConnectionLimit(0, 0, Duration.ofSeconds(1), new AtomicInteger()), true);
    private final LoopConnections pool = new LoopConnections(loop, config, 1);

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private <T> T onLoop(Callable<T> task) throws Exception {
        return loop.submit(task).get(5, TimeUnit.SECONDS);
    }

    @Test
    void anIdleConnectionIsClosedAfterTheKeepaliveTimeout() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        UpstreamCodec.addTo(channel.pipeline(), new io.netty.handler.codec.http.HttpDecoderConfig(), 100);
        UpstreamConnection c = new UpstreamConnection(channel, server, pool);
        onLoop(() -> {
            pool.offer(c);
            return null;
        });
        assertThat(onLoop(() -> pool.idleCount(server))).isEqualTo(1);

        await().atMost(Duration.ofSeconds(5)).until(() -> !channel.isOpen());
        assertThat(onLoop(() -> pool.idleCount(server))).isZero();
    }

    @Test
    void theTimerFiringWhileTheConnectionIsInUseLeavesItOpenAndTheNextIdlePeriodArmsItAgain() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        UpstreamCodec.addTo(channel.pipeline(), new io.netty.handler.codec.http.HttpDecoderConfig(), 100);
        UpstreamConnection c = new UpstreamConnection(channel, server, pool);
        UpstreamConnection taken = onLoop(() -> {
            pool.offer(c);
            return pool.pollIdle(server);
        });
        assertThat(taken).isSameAs(c);

        await().atMost(Duration.ofSeconds(5)).until(() -> onLoop(() -> c.idleTimer == null));
        assertThat(channel.isOpen()).isTrue();

        onLoop(() -> {
            c.release(true);
            return null;
        });
        assertThat(onLoop(() -> c.idleTimer != null)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !channel.isOpen());
        assertThat(onLoop(() -> pool.idleCount(server))).isZero();
        channel.finishAndReleaseAll();
    }
}
