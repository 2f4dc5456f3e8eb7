package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.CharsetUtil;
import io.portico.config.Cidr;
import io.portico.config.LocationConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The per-channel handler: pass, delay on the loop's timer, reject and drain, release on close. */
class RateLimitHandlerTest {
    private final ManualClock clock = new ManualClock();
    private LocationConfig location;

    private RateLimits limits(RateLimitZoneConfig zone, List<Cidr> unlimited) {
        location = Configs.location(List.of(zone.name()), List.of());
        return RateLimits.create(Configs.config(List.of(zone), List.of(), unlimited, location), clock);
    }

    private EmbeddedChannel channel(RateLimits limits, String ip) {
        EmbeddedChannel channel = new EmbeddedChannel(limits.newHandler());
        // The loop's timer moves only with advanceTimeBy: real time passing under a loaded suite must not fire
        // a delayed request early.
        channel.freezeTime();
        channel.attr(ClientExchange.KEY).set(new FakeClientExchange(channel, new Route(location, null)).client(ip));
        return channel;
    }

    private static FakeClientExchange client(EmbeddedChannel channel) {
        return (FakeClientExchange) channel.attr(ClientExchange.KEY).get();
    }

    private static HttpRequest head() {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/upload");
    }

    private static HttpContent chunk(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, CharsetUtil.UTF_8));
    }

    private static LastHttpContent last(String text) {
        return new DefaultLastHttpContent(Unpooled.copiedBuffer(text, CharsetUtil.UTF_8));
    }

    /** Sends a whole request and returns what came out the inbound side, releasing it. */
    private static int sendAndCountForwarded(EmbeddedChannel channel) {
        channel.writeInbound(head(), chunk("a"), last("b"));
        int forwarded = 0;
        for (Object msg = channel.readInbound(); msg != null; msg = channel.readInbound()) {
            forwarded++;
            io.netty.util.ReferenceCountUtil.release(msg);
        }
        return forwarded;
    }

    @Test
    void aConformingRequestPassesWithItsBody() {
        RateLimits limits = limits(Zones.nodelay(10, SECOND, 5), List.of());
        EmbeddedChannel channel = channel(limits, "127.0.0.1");
        HttpRequest head = head();
        HttpContent body = chunk("hello");
        LastHttpContent end = last("!");
        channel.writeInbound(head, body, end);

        assertThat(inbound(channel)).isSameAs(head);
        assertThat(inbound(channel)).isSameAs(body);
        assertThat(inbound(channel)).isSameAs(end);
        assertThat(client(channel).log().note()).isEqualTo("limit=allips:passed");
        assertThat(limits.rateLimitCounters().get("allips").passed()).isEqualTo(1);
        body.release();
        end.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aDelayedRequestWaitsOnTheTimerAndKeepsItsOrder() {
        RateLimits limits = limits(Zones.delayed(1, SECOND, 5, 0), List.of());
        EmbeddedChannel channel = channel(limits, "127.0.0.1");
        assertThat(sendAndCountForwarded(channel)).isEqualTo(3);

        HttpRequest head = head();
        HttpContent body = chunk("hello");
        channel.writeInbound(head, body);
        assertThat(inbound(channel)).isNull();
        assertThat(channel.config().isAutoRead()).isFalse();
        LastHttpContent end = last("!");
        channel.writeInbound(end);
        assertThat(inbound(channel)).isNull();

        channel.advanceTimeBy(999, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();
        assertThat(inbound(channel)).isNull();
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runScheduledPendingTasks();

        assertThat(inbound(channel)).isSameAs(head);
        assertThat(inbound(channel)).isSameAs(body);
        assertThat(inbound(channel)).isSameAs(end);
        assertThat(channel.config().isAutoRead()).isTrue();
        assertThat(client(channel).log().note()).isEqualTo("limit=allips:delayed");
        assertThat(limits.rateLimitCounters().get("allips").delayed()).isEqualTo(1);
        body.release();
        end.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aRejectedRequestIsAnsweredAndItsBodyDrained() {
        RateLimits limits = limits(Zones.nodelay(2, SECOND, 1), List.of());
        EmbeddedChannel channel = channel(limits, "127.0.0.1");
        sendAndCountForwarded(channel);
        sendAndCountForwarded(channel);
        clock.advanceNanos(TimeUnit.MILLISECONDS.toNanos(100));

        HttpContent body = chunk("hello");
        LastHttpContent end = last("!");
        channel.writeInbound(head());
        FullHttpResponse response = channel.readOutbound();
        channel.writeInbound(body, end);

        assertThat(inbound(channel)).isNull();
        assertThat(body.refCnt()).isZero();
        assertThat(end.refCnt()).isZero();
        assertThat(response.status().code()).isEqualTo(429);
        assertThat(response.headers().get("Retry-After")).isEqualTo("1");
        assertThat(response.headers().get("RateLimit-Policy")).isEqualTo("\"allips\";q=2;w=1");
        assertThat(response.headers().get("RateLimit")).isEqualTo("\"allips\";r=0;t=1");
        assertThat(client(channel).log().note()).isEqualTo("limit=allips:rejected");
        assertThat(limits.rateLimitCounters().get("allips").rejected()).isEqualTo(1);
        response.release();

        clock.advanceNanos(TimeUnit.MILLISECONDS.toNanos(400));
        assertThat(sendAndCountForwarded(channel)).as("the next request after the drain is served").isEqualTo(3);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void retryAfterRoundsUpToWholeSecondsAndHeadersCanBeTurnedOff() {
        RateLimits limits = limits(Zones.withoutHeaders(Zones.nodelay(30, Zones.MINUTE, 0)), List.of());
        EmbeddedChannel channel = channel(limits, "127.0.0.1");
        sendAndCountForwarded(channel);
        clock.advanceNanos(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(sendAndCountForwarded(channel)).isZero();

        FullHttpResponse response = channel.readOutbound();
        assertThat(response.headers().get("Retry-After")).isEqualTo("2");
        assertThat(response.headers().contains("RateLimit")).isFalse();
        assertThat(response.headers().contains("RateLimit-Policy")).isFalse();
        response.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void closingWhileDelayedReleasesWhatIsHeld() {
        RateLimits limits = limits(Zones.delayed(1, SECOND, 5, 0), List.of());
        EmbeddedChannel channel = channel(limits, "127.0.0.1");
        sendAndCountForwarded(channel);
        HttpContent body = chunk("hello");
        channel.writeInbound(head(), body);

        channel.close();
        assertThat(body.refCnt()).isZero();
        channel.advanceTimeBy(5, TimeUnit.SECONDS);
        channel.runPendingTasks();
        assertThat(inbound(channel)).isNull();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void unlimitedClientsAreNeverLimited() {
        RateLimits limits = limits(Zones.nodelay(1, SECOND, 0), List.of(Cidr.parse("127.0.0.0/8")));
        EmbeddedChannel channel = channel(limits, "127.0.0.9");
        for (int i = 0; i < 10; i++) {
            assertThat(sendAndCountForwarded(channel)).isEqualTo(3);
        }
        EmbeddedChannel other = channel(limits, "10.0.0.1");
        assertThat(sendAndCountForwarded(other) + sendAndCountForwarded(other)).isEqualTo(3);
        FullHttpResponse rejected = other.readOutbound();
        assertThat(rejected.status().code()).isEqualTo(429);
        rejected.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
        assertThat(other.finishAndReleaseAll()).isFalse();
    }

    @Test
    void dryRunLimitsNothingButCountsWhatItWouldHaveDone() {
        RateLimits limits = limits(Zones.dryRun(Zones.delayed(1, SECOND, 1, 0)), List.of());
        EmbeddedChannel channel = channel(limits, "127.0.0.1");
        for (int i = 0; i < 3; i++) {
            assertThat(sendAndCountForwarded(channel)).isEqualTo(3);
        }
        assertThat(outbound(channel)).isNull();
        assertThat(client(channel).log().note()).isEqualTo("limit=allips:dry-run");
        ZoneCounters counters = limits.rateLimitCounters().get("allips");
        assertThat(counters.passed()).isEqualTo(1);
        assertThat(counters.delayed()).isEqualTo(1);
        assertThat(counters.rejected()).isEqualTo(1);
        assertThat(counters.dryRun()).isEqualTo(2);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    private static Object inbound(EmbeddedChannel channel) {
        return channel.readInbound();
    }

    private static Object outbound(EmbeddedChannel channel) {
        return channel.readOutbound();
    }
}
