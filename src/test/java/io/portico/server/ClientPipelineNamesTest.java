package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import io.portico.connection.ClientPipeline;
import io.portico.ratelimit.RateLimits;
import io.portico.route.HostRouter;
import io.portico.route.Router;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A WebSocket upgrade removes the client's HTTP handlers by these names: the server must build with the same. */
class ClientPipelineNamesTest {
    private static final io.portico.metrics.PorticoMetrics METRICS = new io.portico.metrics.PorticoMetrics();

    @Test
    void theServerBuildsTheClientPipelineWithTheNamesRespondersUse() throws Exception {
        List<String> expected = new ArrayList<>(List.of(ClientPipeline.CONNECTIONS, ClientPipeline.TIMEOUTS));
        expected.addAll(ClientPipeline.CODEC);
        expected.addAll(ClientPipeline.HTTP_HANDLERS.subList(1, ClientPipeline.HTTP_HANDLERS.size()));
        expected.remove(ClientPipeline.CHUNKED_WRITES); // TLS listeners only
        expected.remove(ClientPipeline.COMPRESS); // only where some location compresses

        PorticoConfig config = ConfigLoader.parse("portico { locations = [] }", "names.conf", Path.of("."));
        try (RateLimits limits = RateLimits.create(config)) {
            assertThat(names(config, limits)).isEqualTo(expected);
        }
        assertThat(names(config, null)).isEqualTo(expected.stream()
                .filter(n -> !n.equals(ClientPipeline.RATE_LIMIT)).toList());
    }

    private static List<String> names(PorticoConfig config, RateLimits limits) throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel(Pipelines.initializer(config,
                HostRouter.of(Router.build(config.locations(), l -> null)), limits, l -> METRICS.location("", ""),
                METRICS));
        try {
            return channel.pipeline().names().stream().filter(n -> !n.contains("TailContext")).toList();
        } finally {
            channel.finishAndReleaseAll();
        }
    }
}
