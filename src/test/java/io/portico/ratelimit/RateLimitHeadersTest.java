package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.LocationConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.config.RateLimitZoneConfig.Headers;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;
import io.portico.server.PorticoServer;
import io.portico.testing.FakeClientExchange;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code headers = on-reject | always | off}: which responses carry the RateLimit fields. */
class RateLimitHeadersTest {
    private final ManualClock clock = new ManualClock();

    /** 2r/s burst=1 nodelay: two requests at once, then one every 500 ms. */
    private EmbeddedChannel channel(Headers headers, RateLimitZoneConfig... more) {
        RateLimitZoneConfig zone = Zones.withHeaders(Zones.nodelay(2, SECOND, 1), headers);
        List<RateLimitZoneConfig> zones = new ArrayList<>(List.of(zone));
        zones.addAll(List.of(more));
        LocationConfig location = Configs.location(zones.stream().map(RateLimitZoneConfig::name).toList(), List.of());
        RateLimits limits = RateLimits.create(Configs.config(zones, List.of(), List.of(), location), clock);
        EmbeddedChannel channel = new EmbeddedChannel(limits.newHandler());
        channel.attr(ClientExchange.KEY)
                .set(new FakeClientExchange(channel, new Route(location, null)).client("127.0.0.1"));
        return channel;
    }

    /** One request; when it passes, the responder's 200 goes out through the handler. The response seen. */
    private static FullHttpResponse exchange(EmbeddedChannel channel) {
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        Object passed = channel.readInbound();
        if (passed != null) {
            ReferenceCountUtil.release(passed);
            channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        }
        return channel.readOutbound();
    }

    @Test
    void alwaysSendsTheQuotaLeftOnPassingResponses() {
        EmbeddedChannel channel = channel(Headers.ALWAYS);
        FullHttpResponse first = exchange(channel);
        assertThat(first.status().code()).isEqualTo(200);
        assertThat(first.headers().get("RateLimit-Policy")).isEqualTo("\"allips\";q=2;w=1");
        assertThat(first.headers().get("RateLimit")).as("one more fits; full again in 0.5 s")
                .isEqualTo("\"allips\";r=1;t=1");
        FullHttpResponse second = exchange(channel);
        assertThat(second.headers().get("RateLimit")).isEqualTo("\"allips\";r=0;t=1");
        FullHttpResponse third = exchange(channel);
        assertThat(third.status().code()).isEqualTo(429);
        assertThat(third.headers().get("RateLimit")).isEqualTo("\"allips\";r=0;t=1");
        assertThat(third.headers().get("Retry-After")).isEqualTo("1");

        clock.advanceNanos(TimeUnit.SECONDS.toNanos(3));
        assertThat(exchange(channel).headers().get("RateLimit")).as("a refilled bucket")
                .isEqualTo("\"allips\";r=1;t=1");
        List.of(first, second, third).forEach(FullHttpResponse::release);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void onRejectLeavesPassingResponsesAlone() {
        EmbeddedChannel channel = channel(Headers.ON_REJECT);
        FullHttpResponse passed = exchange(channel);
        assertThat(passed.headers().contains("RateLimit")).isFalse();
        assertThat(passed.headers().contains("RateLimit-Policy")).isFalse();
        exchange(channel);
        FullHttpResponse rejected = exchange(channel);
        assertThat(rejected.headers().get("RateLimit")).isEqualTo("\"allips\";r=0;t=1");
        rejected.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void offSendsOnlyRetryAfter() {
        EmbeddedChannel channel = channel(Headers.OFF);
        assertThat(exchange(channel).headers().contains("RateLimit")).isFalse();
        exchange(channel);
        FullHttpResponse rejected = exchange(channel);
        assertThat(rejected.headers().contains("RateLimit")).isFalse();
        assertThat(rejected.headers().get("Retry-After")).isEqualTo("1");
        rejected.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void eachZoneWithAlwaysAddsItsOwnFieldAndAContinueGetsNone() {
        RateLimitZoneConfig quiet = Zones.named(Zones.nodelay(10, SECOND, 0), "quiet", "client-ip");
        RateLimitZoneConfig loud = Zones.withHeaders(Zones.named(Zones.nodelay(1, SECOND, 4), "loud", "client-ip"),
                Headers.ALWAYS);
        EmbeddedChannel channel = channel(Headers.ALWAYS, quiet, loud);
        channel.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        ReferenceCountUtil.release(channel.readInbound());
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        channel.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        FullHttpResponse interim = channel.readOutbound();
        FullHttpResponse ok = channel.readOutbound();
        assertThat(interim.headers().contains("RateLimit")).isFalse();
        assertThat(ok.headers().getAll("RateLimit")).containsExactly("\"allips\";r=1;t=1", "\"loud\";r=4;t=1");
        assertThat(ok.headers().getAll("RateLimit-Policy")).containsExactly("\"allips\";q=2;w=1", "\"loud\";q=1;w=1");
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void throughTheRealServerEveryResponseOfAnAlwaysZoneCarriesTheFields() throws Exception {
        PorticoServer server = TestServers.start("""
                rate-limits { z { rate = 2r/s, burst = 1, nodelay = true, headers = always } }
                locations = [ { path = "/", return = { status = 200, body = "ok" }, rate-limit = z } ]
                """);
        try (RawHttp http = new RawHttp(TestServers.port(server))) {
            List<String> fields = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Response response = http.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n").read();
                fields.add(response.status() + " " + response.header("RateLimit") + " "
                        + response.header("RateLimit-Policy"));
            }
            assertThat(fields).containsExactly(
                    "200 \"z\";r=1;t=1 \"z\";q=2;w=1",
                    "200 \"z\";r=0;t=1 \"z\";q=2;w=1",
                    "429 \"z\";r=0;t=1 \"z\";q=2;w=1");
        } finally {
            server.stop();
        }
    }

    @Test
    void configAcceptsTheModesAndTheOlderBooleans() {
        assertThat(headersOf("always")).isEqualTo(Headers.ALWAYS);
        assertThat(headersOf("on-reject")).isEqualTo(Headers.ON_REJECT);
        assertThat(headersOf("off")).isEqualTo(Headers.OFF);
        assertThat(headersOf("true")).isEqualTo(Headers.ON_REJECT);
        assertThat(headersOf("false")).isEqualTo(Headers.OFF);
        assertThat(TestServers.config("rate-limits { z { rate = 1r/s } }", Path.of("."))
                .rateLimits().get("z").headers())
                .as("default").isEqualTo(Headers.ON_REJECT);
        assertThatThrownBy(() -> headersOf("sometimes"))
                .hasMessageContaining("'sometimes' (expected: on-reject, always or off)");
    }

    private static Headers headersOf(String value) {
        return TestServers.config("rate-limits { z { rate = 1r/s, headers = " + value + " } }", Path.of("."))
                .rateLimits().get("z").headers();
    }
}
