package io.portico.cli;

import io.portico.config.ListenerConfig;
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
        boolean limited = config.allLocations().stream().anyMatch(l -> !l.rateLimits().isEmpty());
        boolean everyoneTrusted = config.trustedProxies().stream().anyMatch(c -> c.prefix() == 0);
        if (limited && everyoneTrusted) {
            out.add("trusted-proxies contains a /0 block: every client's X-Forwarded-For is believed, so any client"
                    + " can choose the address it is rate-limited as");
        }
        for (ListenerConfig listener : config.listen()) {
            if (listener.proxyProtocol().isPresent()
                    && listener.proxyProtocol().get().trusted().stream().anyMatch(c -> c.prefix() == 0)) {
                out.add("listener " + listener.address() + " takes a PROXY protocol header from every address"
                        + " (trusted has a /0 block): unless only the balancers can reach the port, any client can"
                        + " name the address it is limited, allowed and logged as");
            }
        }
        // A balancer missing from trusted-proxies cannot be seen in the file: the rate-limit zones notice it at
        // run time (ratelimit.UntrustedProxyDetector). One trusted host is the usual, correct setup.
        for (LocationConfig location : config.allLocations()) {
            if (location.target() instanceof TargetConfig.Metrics && location.allow().isEmpty()) {
                out.add("location " + location.match() + " serves metrics to every client: restrict it with allow"
                        + " = [\"127.0.0.1/32\", ...]");
            }
        }
        return out;
    }
}
