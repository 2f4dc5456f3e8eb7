package io.portico.ratelimit;

import io.portico.config.Cidr;
import io.portico.config.LimitConnConfig;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Whole configurations with just what the rate limits read. */
final class Configs {
    private Configs() {}

    static LocationConfig location(List<String> rateLimits, List<String> limitConn) {
        return new LocationConfig(
                new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, "/"), null, rateLimits, limitConn, "test");
    }

    static PorticoConfig config(List<RateLimitZoneConfig> zones, List<LimitConnConfig> conns, List<Cidr> unlimited,
            LocationConfig... locations) {
        Map<String, RateLimitZoneConfig> rate = new LinkedHashMap<>();
        zones.forEach(z -> rate.put(z.name(), z));
        Map<String, LimitConnConfig> conn = new LinkedHashMap<>();
        conns.forEach(c -> conn.put(c.name(), c));
        return new PorticoConfig(null, null, List.of(), 1, io.portico.config.IoTransport.AUTO, null, null, null, null,
                List.of(), unlimited, Map.of(), rate, conn, List.of(locations), null, List.of(), null);
    }
}
