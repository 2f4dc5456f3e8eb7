package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A location's meters hold a counter for each (method, status) pair it has answered and for no other: the table
 * grows with what the location answers, not with what it could (server.LocationCostTest counts the bytes).
 */
class LocationMetersTest {
    private static final HttpMethod[] METHODS = {
        HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.PATCH,
        HttpMethod.OPTIONS, HttpMethod.valueOf("PROPFIND")
    };

    private static Map<String, Double> scrape(PorticoMetrics metrics) {
        return Scrape.parse(new String(metrics.scrape(), StandardCharsets.UTF_8));
    }

    private static double requests(Map<String, Double> samples, String method, int code) {
        return samples.getOrDefault(
                "portico_http_requests_total{code=\"" + code + "\",host=\"\",location=\"/a/\",method=\"" + method + "\"}", 0.0);
    }

    @Test
    void holdsACounterOnlyForThePairsAnswered() {
        PorticoMetrics metrics = new PorticoMetrics();
        LocationMeters meters = metrics.location("", "/a/");
        assertThat(meters.pairsAnswered()).isZero();
        for (int i = 0; i < 100; i++) {
            meters.answered(HttpMethod.GET, 200, 1_000, 10);
        }
        meters.answered(HttpMethod.HEAD, 404, 1_000, 0);
        assertThat(meters.pairsAnswered()).isEqualTo(2);
        Map<String, Double> samples = scrape(metrics);
        assertThat(requests(samples, "GET", 200)).isEqualTo(100.0);
        assertThat(requests(samples, "HEAD", 404)).isEqualTo(1.0);
    }

    @Test
    void everyPairHasItsOwnCounterWhenAnUpstreamAnswersWithEveryStatus() {
        PorticoMetrics metrics = new PorticoMetrics();
        LocationMeters meters = metrics.location("", "/a/");
        // each pair answered code % 3 + 1 times, in an order that interleaves the table's growth with its lookups
        for (int round = 0; round < 3; round++) {
            for (int code = 100; code <= 599; code++) {
                for (HttpMethod m : METHODS) {
                    if (round <= code % 3) {
                        meters.answered(m, code, 1_000, 0);
                    }
                }
            }
        }
        assertThat(meters.pairsAnswered()).isEqualTo(METHODS.length * 500);
        Map<String, Double> samples = scrape(metrics);
        for (int code = 100; code <= 599; code++) {
            for (String m : new String[] {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "OTHER"}) {
                assertThat(requests(samples, m, code)).as("%s %d", m, code).isEqualTo(code % 3 + 1.0);
            }
        }
    }

    @Test
    void aStatusOutsideTheRangeCountsAs599() {
        PorticoMetrics metrics = new PorticoMetrics();
        LocationMeters meters = metrics.location("", "/a/");
        meters.answered(HttpMethod.GET, 99, 1_000, 0);
        meters.answered(HttpMethod.GET, 600, 1_000, 0);
        assertThat(meters.pairsAnswered()).isEqualTo(1);
        assertThat(requests(scrape(metrics), "GET", 599)).isEqualTo(2.0);
    }
}
