package io.portico.cli;

import io.portico.config.PorticoConfig;
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
        return out;
    }
}
