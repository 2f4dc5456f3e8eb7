package io.portico.cli;

import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import java.util.ArrayList;
import java.util.List;

/** Things a valid configuration may not mean to do; printed by check and at start-up. */
final class ConfigWarnings {
    private ConfigWarnings() {}

    static List<String> of(PorticoConfig config) {
        List<String> out = new ArrayList<>();
        boolean limited = config.locations().stream().anyMatch(l -> !l.rateLimits().isEmpty());
        boolean everyoneTrusted = config.trustedProxies().stream().anyMatch(c -> c.prefix() == 0);
        if (limited && everyoneTrusted) {
            out.add("trusted-proxies contains a /0 block: every client's X-Forwarded-For is believed, so any client"
                    + " can choose the address it is rate-limited as");
        }
        boolean keyedByIp = config.rateLimits().values().stream().anyMatch(z -> z.key().contains("client-ip"));
        for (var proxy : config.trustedProxies()) {
            boolean oneHost = proxy.prefix() == proxy.network().length * 8;
            if (limited && keyedByIp && oneHost) {
                out.add("trusted-proxies has the single host " + proxy + ": requests through it are keyed by their"
                        + " X-Forwarded-For; if it does not send one, every request through it counts as " + proxy
                        + " and you are rate-limiting your load balancer");
            }
        }
        for (LocationConfig location : config.locations()) {
            if (location.target() instanceof TargetConfig.Metrics && location.allow().isEmpty()) {
                out.add("location " + location.match() + " serves metrics to every client: restrict it with allow"
                        + " = [\"127.0.0.1/32\", ...]");
            }
        }
        return out;
    }
}
