package io.portico.route;

import io.portico.config.HostConfig;
import io.portico.config.ListenAddress;
import io.portico.config.LocationConfig;
import io.portico.exchange.Responder;
import io.portico.exchange.Route;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Chooses a request's virtual host, then its location: a host name by hash, then the longest {@code *.} wildcard
 * whose suffix it ends with (nginx's {@code server_name} order for these two forms), else the default host (the
 * top-level locations). With no virtual hosts configured it is the default host's {@link Router} and nothing else.
 */
public final class HostRouter {
    private final Router defaultHost;
    private final Map<String, Router> exact;
    /** Wildcards by their suffix with its leading dot: ".example.com" for "*.example.com". */
    private final Map<String, Router> wildcards;

    private HostRouter(Router defaultHost, Map<String, Router> exact, Map<String, Router> wildcards) {
        this.defaultHost = defaultHost;
        this.exact = exact;
        this.wildcards = wildcards;
    }

    /** Only a default host: what a configuration without {@code hosts} routes with. */
    public static HostRouter of(Router defaultHost) {
        return new HostRouter(defaultHost, Map.of(), Map.of());
    }

    /**
     * The hosts that answer on {@code listener} (all of them when it is null), over the default host. {@code
     * responders} gives each location its responder, told the host it belongs to (null: a top-level location).
     */
    public static HostRouter build(List<LocationConfig> locations, List<HostConfig> hosts, ListenAddress listener,
            BiFunction<HostConfig, LocationConfig, Responder> responders) {
        Map<String, Router> exact = new HashMap<>();
        Map<String, Router> wildcards = new HashMap<>();
        Router defaultHost = null;
        for (HostConfig host : hosts) {
            if (listener != null && !host.on(listener)) {
                continue;
            }
            Router router = Router.build(host.locations(), location -> responders.apply(host, location));
            if (host.isDefault() && listener != null) {
                defaultHost = router;
            }
            for (String name : host.names()) {
                if (name.startsWith("*.")) {
                    wildcards.put(name.substring(1), router);
                } else {
                    exact.put(name, router);
                }
            }
        }
        return new HostRouter(defaultHost != null ? defaultHost : Router.build(locations, location -> responders.apply(null, location)),
                Map.copyOf(exact), Map.copyOf(wildcards));
    }

    /** Whether any virtual host is configured (else {@link #router} is always the default host's). */
    public boolean virtual() {
        return !exact.isEmpty() || !wildcards.isEmpty();
    }

    /**
     * The router of the host named {@code host}: a Host header's value or an SNI name, in any case, with or without
     * a port (null: the default host).
     */
    public Router router(String host) {
        if (!virtual() || host == null) {
            return defaultHost;
        }
        String name = name(host);
        Router r = exact.get(name);
        if (r != null) {
            return r;
        }
        if (!wildcards.isEmpty()) {
            for (int dot = name.indexOf('.'); dot >= 0; dot = name.indexOf('.', dot + 1)) {
                r = wildcards.get(name.substring(dot));
                if (r != null) {
                    return r;
                }
            }
        }
        return defaultHost;
    }

    /** Every location of every host, the default host's first (what is sized by the largest of them). */
    public List<Route> routes() {
        List<Route> all = new ArrayList<>(defaultHost.routes());
        Set<Router> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Router r : exact.values()) {
            if (seen.add(r)) {
                all.addAll(r.routes());
            }
        }
        for (Router r : wildcards.values()) {
            if (seen.add(r)) {
                all.addAll(r.routes());
            }
        }
        return all;
    }

    /** {@code host} lower-cased without its port; an IPv6 literal keeps its brackets. */
    static String name(String host) {
        int end = host.length();
        int colon = host.lastIndexOf(':');
        if (colon >= 0 && host.indexOf(']', colon) < 0) {
            end = colon;
        }
        if (end > 0 && host.charAt(end - 1) == '.') {
            end--; // "example.com." is example.com
        }
        String name = end == host.length() ? host : host.substring(0, end);
        return name.toLowerCase(java.util.Locale.ROOT);
    }
}
