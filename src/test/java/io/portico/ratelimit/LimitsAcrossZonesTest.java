package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.LimitConnConfig;
import io.portico.config.LocationConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import io.portico.testing.ResponseEvents;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Several zones on one location, and limit-conn: requests in progress per key. */
class LimitsAcrossZonesTest {
    private final ManualClock clock = new ManualClock();

    private static EmbeddedChannel channel(RateLimits limits, LocationConfig location, String ip) {
        // the response's end, which gives back limit-conn slots, is told by the exchange's owner (ResponseEvents here)
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseEvents(), limits.newHandler());
        channel.attr(ClientExchange.KEY).set(new FakeClientExchange(channel, new Route(location, null)).client(ip));
        return channel;
    }

    private static FullHttpRequest request(String apiKey) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/",
                Unpooled.EMPTY_BUFFER);
        request.headers().set("X-Api-Key", apiKey);
        return request;
    }

    /** The status the request got: 200 when it was forwarded (and released here), else the error status. */
    private static int send(EmbeddedChannel channel, FullHttpRequest request) {
        channel.writeInbound(request);
        Object forwarded = channel.readInbound();
        if (forwarded != null) {
            ReferenceCountUtil.release(forwarded);
            return 200;
        }
        FullHttpResponse response = channel.readOutbound();
        int status = response.status().code();
        response.release();
        return status;
    }

    @Test
    void aRejectionByOneZoneChargesNoneOfTheOthers() {
        RateLimitZoneConfig perIp = Zones.nodelay(2, SECOND, 1);
        RateLimitZoneConfig perKey = Zones.named(Zones.nodelay(1, SECOND, 0), "perkey", "header:X-Api-Key");
        LocationConfig location = Configs.location(List.of("allips", "perkey"), List.of());
        RateLimits limits = RateLimits.create(Configs.config(List.of(perIp, perKey), List.of(), List.of(), location),
                clock);
        EmbeddedChannel channel = channel(limits, location, "127.0.0.1");

        assertThat(send(channel, request("k1"))).isEqualTo(200);
        assertThat(send(channel, request("k1"))).as("perkey rejects, allips gives back").isEqualTo(429);
        assertThat(send(channel, request("k2"))).as("allips still has its second token").isEqualTo(200);
        assertThat(send(channel, request("k3"))).as("allips is now empty").isEqualTo(429);
        assertThat(limits.rateLimitCounters().get("allips").rejected()).isEqualTo(1);
        assertThat(limits.rateLimitCounters().get("perkey").rejected()).isEqualTo(1);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void anEmptyKeyIsNotLimited() {
        RateLimitZoneConfig perKey = Zones.named(Zones.nodelay(1, SECOND, 0), "perkey", "header:X-Api-Key");
        LocationConfig location = Configs.location(List.of("perkey"), List.of());
        RateLimits limits = RateLimits.create(Configs.config(List.of(perKey), List.of(), List.of(), location), clock);
        EmbeddedChannel channel = channel(limits, location, "127.0.0.1");
        for (int i = 0; i < 5; i++) {
            FullHttpRequest anonymous = request("x");
            anonymous.headers().remove("X-Api-Key");
            assertThat(send(channel, anonymous)).isEqualTo(200);
        }
        assertThat(limits.rateLimitCounters().get("perkey").passed()).isZero();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void limitConnCountsRequestsInProgressUntilTheResponseEnds() {
        LimitConnConfig conn = new LimitConnConfig("perip", "client-ip", 1, 503);
        LocationConfig location = Configs.location(List.of(), List.of("perip"));
        RateLimits limits = RateLimits.create(Configs.config(List.of(), List.of(conn), List.of(), location), clock);
        EmbeddedChannel first = channel(limits, location, "127.0.0.1");
        EmbeddedChannel second = channel(limits, location, "127.0.0.1");
        EmbeddedChannel elsewhere = channel(limits, location, "127.0.0.2");

        assertThat(send(first, request("a"))).isEqualTo(200);
        assertThat(send(second, request("a"))).isEqualTo(503);
        assertThat(send(elsewhere, request("a"))).isEqualTo(200);
        assertThat(client(second).log().note()).isEqualTo("limit-conn=perip:rejected");

        first.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        ReferenceCountUtil.release(first.readOutbound());
        assertThat(send(second, request("a"))).as("100 Continue does not end the exchange").isEqualTo(503);
        first.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        ReferenceCountUtil.release(first.readOutbound());
        assertThat(send(second, request("a"))).as("the first exchange ended").isEqualTo(200);
        assertThat(send(first, request("a"))).isEqualTo(503);

        second.close();
        assertThat(send(first, request("a"))).as("the second connection closed").isEqualTo(200);
        first.writeOutbound(new DefaultLastHttpContent());
        ReferenceCountUtil.release(first.readOutbound());
        assertThat(limits.connZone("perip").inProgress(ClientKey.ipv4(0x7f000001))).isZero();
        assertThat(limits.limitConnCounters().get("perip").rejected()).isEqualTo(3);

        assertThat(first.finishAndReleaseAll()).isFalse();
        assertThat(second.finishAndReleaseAll()).isFalse();
        elsewhere.finishAndReleaseAll();
    }

    @Test
    void limitConnKeysIpv6ClientsByTheZonePrefix() {
        LimitConnConfig per64 = new LimitConnConfig("perip", "client-ip", 1, 503);
        LimitConnConfig per128 = new LimitConnConfig("peraddress", "client-ip", 1, 503, 128);
        assertThat(statusesOfTwoHolders(per64)).as("two addresses of one /64").containsExactly(200, 503);
        assertThat(statusesOfTwoHolders(per128)).as("ipv6-prefix = 128").containsExactly(200, 200);
    }

    /** One request in progress from 2001:db8:0:1::1, then one from 2001:db8:0:1::2; their statuses. */
    private List<Integer> statusesOfTwoHolders(LimitConnConfig zone) {
        LocationConfig location = Configs.location(List.of(), List.of(zone.name()));
        RateLimits limits = RateLimits.create(Configs.config(List.of(), List.of(zone), List.of(), location), clock);
        EmbeddedChannel first = channel(limits, location, "2001:db8:0:1::1");
        EmbeddedChannel second = channel(limits, location, "2001:db8:0:1::2");
        List<Integer> statuses = List.of(send(first, request("a")), send(second, request("a")));
        first.finishAndReleaseAll();
        second.finishAndReleaseAll();
        return statuses;
    }

    @Test
    void aDelayedRequestThatFindsItsConnectionLimitFullIsRejectedAndItsHeldBodyDrained() {
        RateLimitZoneConfig slow = Zones.delayed(1, SECOND, 5, 0);
        LimitConnConfig conn = new LimitConnConfig("perip", "client-ip", 1, 503);
        LocationConfig location = Configs.location(List.of("allips"), List.of("perip"));
        RateLimits limits = RateLimits.create(Configs.config(List.of(slow), List.of(conn), List.of(), location), clock);
        EmbeddedChannel busy = channel(limits, location, "127.0.0.1");
        EmbeddedChannel waiting = channel(limits, location, "127.0.0.1");
        assertThat(send(busy, request("a"))).isEqualTo(200);

        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/");
        HttpContent body = new DefaultHttpContent(Unpooled.copiedBuffer(new byte[] {1, 2, 3}));
        LastHttpContent end = new DefaultLastHttpContent(Unpooled.copiedBuffer(new byte[] {4}));
        waiting.writeInbound(head, body, end);
        assertThat(outbound(waiting)).isNull();
        waiting.advanceTimeBy(1, TimeUnit.SECONDS);
        waiting.runScheduledPendingTasks();

        FullHttpResponse response = waiting.readOutbound();
        assertThat(response.status().code()).isEqualTo(503);
        response.release();
        assertThat(inbound(waiting)).isNull();
        assertThat(body.refCnt()).isZero();
        assertThat(end.refCnt()).isZero();
        assertThat(client(waiting).log().note()).isEqualTo("limit=allips:delayed limit-conn=perip:rejected");
        assertThat(waiting.config().isAutoRead()).isTrue();
        assertThat(busy.finishAndReleaseAll()).isFalse();
        assertThat(waiting.finishAndReleaseAll()).isFalse();
    }

    private static FakeClientExchange client(EmbeddedChannel channel) {
        return (FakeClientExchange) channel.attr(ClientExchange.KEY).get();
    }

    private static Object inbound(EmbeddedChannel channel) {
        return channel.readInbound();
    }

    private static Object outbound(EmbeddedChannel channel) {
        return channel.readOutbound();
    }
}
