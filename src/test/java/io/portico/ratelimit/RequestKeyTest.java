package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestKeyTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/a");

    private ClientKey key(String spec, int ipv6Prefix, String ip) {
        FakeClientExchange client = new FakeClientExchange(channel,
                new Route(Configs.location(List.of(), List.of()), null)).client(ip).path("/a");
        return RequestKey.parse("rate-limits.z", spec, ipv6Prefix).of(client, request);
    }

    @Test
    void ipv4IsOneInt() {
        assertThat(key("client-ip", 64, "127.0.0.1")).isEqualTo(ClientKey.ipv4(0x7f000001));
        assertThat(key("client-ip", 64, "255.1.2.200")).hasToString("255.1.2.200");
        assertThat(key("client-ip", 64, "10.0.0.1")).isNotEqualTo(key("client-ip", 64, "10.0.0.2"));
    }

    @Test
    void ipv6IsKeyedByItsPrefix() {
        assertThat(key("client-ip", 64, "2001:db8:0:1::1")).isEqualTo(key("client-ip", 64, "2001:db8:0:1:ffff::2"));
        assertThat(key("client-ip", 64, "2001:db8:0:1::1")).isNotEqualTo(key("client-ip", 64, "2001:db8:0:2::1"));
        assertThat(key("client-ip", 128, "2001:db8::1")).isNotEqualTo(key("client-ip", 128, "2001:db8::2"));
        assertThat(key("client-ip", 56, "2001:db8:0:1::1")).isEqualTo(key("client-ip", 56, "2001:db8:0:ff::1"));
    }

    @Test
    void partsCombine() {
        request.headers().set("X-Api-Key", "secret");
        assertThat(key("client-ip+path", 64, "127.0.0.1")).isEqualTo(ClientKey.text("127.0.0.1\n/a"));
        assertThat(key("header:X-Api-Key", 64, "127.0.0.1")).isEqualTo(ClientKey.text("secret"));
        assertThat(key("header:X-Api-Key+path", 64, "127.0.0.1")).isEqualTo(ClientKey.text("secret\n/a"));
    }

    @Test
    void anEmptyKeyIsNull() {
        assertThat(key("header:X-Api-Key", 64, "127.0.0.1")).isNull();
    }

    @Test
    void unknownPartsAreRefused() {
        assertThatThrownBy(() -> RequestKey.parse("rate-limits.z", "client-ip+cookie", 64))
                .hasMessage("rate-limits.z.key: client-ip+cookie (expected: client-ip, path, host or header:NAME,"
                        + " joined by +)");
    }
}
