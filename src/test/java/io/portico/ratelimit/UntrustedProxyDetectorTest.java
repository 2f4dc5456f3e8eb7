package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The load-balancer detector through the rate-limit handler, on a manual clock (30 s of traffic in no time): a
 * balancer missing from trusted-proxies whose requests carry X-Forwarded-For gets one WARN naming it and the line
 * to add, however long it goes on; a correct configuration, a client without the header and an untrusted peer
 * that is a small part of the traffic get none.
 */
class UntrustedProxyDetectorTest {
    private final ManualClock clock = new ManualClock();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(UntrustedProxyDetector.class);

    @BeforeEach
    void capture() {
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void release() {
        logger.detachAppender(logged);
    }

    private static PorticoConfig config(String trusted, String key) throws Exception {
        return ConfigLoader.parse("portico { trusted-proxies = " + trusted
                + ", rate-limits { perip { rate = 1000r/s, key = \"" + key + "\" } }"
                + ", locations = [ { path = \"/\", return = 204, rate-limit = perip } ] }", "d.conf", Path.of("."));
    }

    /** A connection from {@code peer} ({@code trusted} or not) for client {@code client}. */
    private static EmbeddedChannel connection(RateLimits limits, PorticoConfig config, String peer, boolean trusted,
            String client) {
        EmbeddedChannel channel = new EmbeddedChannel(limits.newHandler());
        channel.attr(ClientExchange.KEY).set(new FakeClientExchange(channel, new Route(config.locations().get(0),
                null)).client(client).peer(peer, trusted));
        return channel;
    }

    /** {@code n} requests, 100 ms apart on the manual clock, each passed on by the zone. */
    private void requests(EmbeddedChannel channel, int n, boolean forwardedFor) {
        requests(channel, n, forwardedFor, 100);
    }

    private void requests(EmbeddedChannel channel, int n, boolean forwardedFor, long apartMillis) {
        for (int i = 0; i < n; i++) {
            DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
            if (forwardedFor) {
                request.headers().set("X-Forwarded-For", "203.0.113." + (i % 200));
            }
            channel.writeInbound(request);
            Object passed = channel.readInbound();
            assertThat(passed).as("the zone let it pass").isNotNull();
            ReferenceCountUtil.release(passed);
            clock.advanceNanos(TimeUnit.MILLISECONDS.toNanos(apartMillis));
        }
    }

    private List<String> warnings() {
        return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Test
    void aBalancerMissingFromTrustedProxiesIsNamedOnceWithTheLineToAdd() throws Exception {
        PorticoConfig config = config("[\"192.168.0.0/16\"]", "client-ip");
        try (RateLimits limits = RateLimits.create(config, clock)) {
            EmbeddedChannel balancer = connection(limits, config, "10.0.0.5", false, "10.0.0.5");
            requests(balancer, 300, true); // three windows
            assertThat(warnings()).singleElement().asString()
                    .contains("rate-limit zone perip", "10.0.0.5", "not in trusted-proxies")
                    .endsWith("trusted-proxies = [\"192.168.0.0/16\", \"10.0.0.5\"]");
            EmbeddedChannel again = connection(limits, config, "10.0.0.5", false, "10.0.0.5");
            requests(again, 300, true);
            assertThat(warnings()).as("once per address").hasSize(1);
            assertThat(balancer.finishAndReleaseAll()).isFalse();
            assertThat(again.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void aTrustedBalancerIsACorrectConfiguration() throws Exception {
        PorticoConfig config = config("[\"10.0.0.5\"]", "client-ip");
        try (RateLimits limits = RateLimits.create(config, clock)) {
            EmbeddedChannel balancer = connection(limits, config, "10.0.0.5", true, "203.0.113.7");
            requests(balancer, 300, true);
            EmbeddedChannel direct = connection(limits, config, "198.51.100.1", false, "198.51.100.1");
            requests(direct, 300, false);
            assertThat(warnings()).isEmpty();
            assertThat(balancer.finishAndReleaseAll()).isFalse();
            assertThat(direct.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void anUntrustedPeerThatIsASmallPartOfTheTrafficIsNotABalancer() throws Exception {
        PorticoConfig config = config("[]", "client-ip");
        try (RateLimits limits = RateLimits.create(config, clock)) {
            EmbeddedChannel others = connection(limits, config, "198.51.100.1", false, "198.51.100.1");
            EmbeddedChannel forwarder = connection(limits, config, "10.0.0.5", false, "10.0.0.5");
            for (int round = 0; round < 750; round++) { // 30 s: 250 a window from it, but 1 request in 4
                requests(others, 3, false, 10);
                requests(forwarder, 1, true, 10);
            }
            assertThat(warnings()).isEmpty();
            assertThat(others.finishAndReleaseAll()).isFalse();
            assertThat(forwarder.finishAndReleaseAll()).isFalse();
        }
    }

    @Test
    void aZoneNotKeyedByTheClientAddressDoesNotCare() throws Exception {
        PorticoConfig config = config("[]", "header:X-Api-Key");
        try (RateLimits limits = RateLimits.create(config, clock)) {
            EmbeddedChannel balancer = connection(limits, config, "10.0.0.5", false, "10.0.0.5");
            requests(balancer, 300, true);
            assertThat(warnings()).isEmpty();
            assertThat(balancer.finishAndReleaseAll()).isFalse();
        }
    }
}
