package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.portico.config.Cidr;
import io.portico.config.LocationConfig;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import java.util.List;
import org.junit.jupiter.api.Test;

/** allow / deny in front of a responder: who gets through, and what a refused request leaves behind. */
class AccessRulesTest {
    private static final Responder NEVER = (client, request) -> {
        throw new AssertionError("a refused client reached the responder");
    };

    private static LocationConfig location(List<String> allow, List<String> deny) {
        return new LocationConfig(new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, "/"), null, List.of(),
                List.of(), allow.stream().map(Cidr::parse).toList(), deny.stream().map(Cidr::parse).toList(), "test");
    }

    @Test
    void aLocationWithoutListsKeepsItsOwnResponder() {
        assertThat(AccessRules.guard(location(List.of(), List.of()), NEVER)).isSameAs(NEVER);
    }

    @Test
    void denyWinsOverAllowWhateverTheOrder() {
        AccessRules rules = (AccessRules) AccessRules.guard(
                location(List.of("10.0.0.0/8", "::1/128"), List.of("10.0.0.1/32")), NEVER);
        assertThat(rules.permits(new java.net.InetSocketAddress("10.9.9.9", 1))).isTrue();
        assertThat(rules.permits(new java.net.InetSocketAddress("10.0.0.1", 1))).isFalse();
        assertThat(rules.permits(new java.net.InetSocketAddress("11.0.0.1", 1))).isFalse();
        assertThat(rules.permits(new java.net.InetSocketAddress("::1", 1))).isTrue();
        assertThat(rules.permits(null)).as("an unknown client of a restricted location").isFalse();
    }

    @Test
    void aRefusedRequestGets403ItsBodyReleasedAndANoteAfterTheRateLimitOne() {
        EmbeddedChannel channel = new EmbeddedChannel();
        LocationConfig location = location(List.of("10.0.0.0/8"), List.of());
        FakeClientExchange client = new FakeClientExchange(channel, new Route(location, null)).client("192.0.2.1");
        client.log().note("limit=allips:passed");
        Exchange exchange = AccessRules.guard(location, NEVER)
                .open(client, new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/"));
        LastHttpContent body = new DefaultLastHttpContent(Unpooled.copiedBuffer(new byte[] {1, 2, 3}));
        exchange.onContent(body);

        assertThat(body.refCnt()).isZero();
        FullHttpResponse response = channel.readOutbound();
        assertThat(response.status().code()).isEqualTo(403);
        assertThat(client.log().note()).isEqualTo("limit=allips:passed access=denied");
        response.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }
}
