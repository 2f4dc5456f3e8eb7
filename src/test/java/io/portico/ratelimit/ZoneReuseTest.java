package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A reload takes over each zone (rate-limit and limit-conn) whose definition is the same, and only those. */
class ZoneReuseTest {
    private static PorticoConfig config(String zones) throws Exception {
        return ConfigLoader.parse("portico { " + zones + "\n"
                + " locations = [ { path = \"/\", return = 204, rate-limit = [a, b], limit-conn = c } ] }",
                "zones.conf", Path.of("."));
    }

    @Test
    void unchangedZonesAreTheSameObjectsAndChangedOnesAreNew() throws Exception {
        String zones = "rate-limits { a { rate = 1r/s }, b { rate = 5r/s } }, limit-conn { c { max = 2 } }";
        try (RateLimits first = RateLimits.create(config(zones))) {
            try (RateLimits same = RateLimits.create(config(zones), first)) {
                assertThat(same.keptFrom(first)).containsExactlyInAnyOrder("a", "b", "c");
                assertThat(same.rateZone("a")).isSameAs(first.rateZone("a"));
                assertThat(same.connZone("c")).isSameAs(first.connZone("c"));
            }
            String changed = zones.replace("5r/s", "6r/s").replace("max = 2", "max = 3");
            try (RateLimits next = RateLimits.create(config(changed), first)) {
                assertThat(next.keptFrom(first)).containsExactly("a");
                assertThat(next.rateZone("b")).isNotSameAs(first.rateZone("b"));
                // a new zone takes an index no kept zone has, so a connection's memos never mix two zones
                assertThat(next.rateZone("b").index).isNotEqualTo(next.rateZone("a").index);
                assertThat(next.rateZoneCount()).isGreaterThan(Math.max(next.rateZone("a").index,
                        next.rateZone("b").index));
            }
        }
    }
}
