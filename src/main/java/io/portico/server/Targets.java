package io.portico.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import io.portico.proxy.Proxies;
import io.portico.ratelimit.RateLimits;
import io.portico.route.Responder;
import io.portico.route.ReturnResponder;
import io.portico.staticfile.StaticFiles;

/**
 * The modules behind the locations, started with the server and closed with it: static files (one shared
 * cache), the upstream pools and their proxies, and the rate-limit zones.
 */
final class Targets implements AutoCloseable {
    private final StaticFiles staticFiles;
    private final Proxies proxies;
    private final RateLimits rateLimits;
    private final boolean anyLimits;

    private Targets(StaticFiles staticFiles, Proxies proxies, RateLimits rateLimits, boolean anyLimits) {
        this.staticFiles = staticFiles;
        this.proxies = proxies;
        this.rateLimits = rateLimits;
        this.anyLimits = anyLimits;
    }

    static Targets start(PorticoConfig config, EventLoopGroup group) {
        boolean anyLimits = config.locations().stream()
                .anyMatch(l -> !l.rateLimits().isEmpty() || !l.limitConn().isEmpty());
        return new Targets(
                StaticFiles.create(config.staticFiles()), Proxies.start(config, group), RateLimits.create(config), anyLimits);
    }

    Responder responder(LocationConfig location) {
        TargetConfig t = location.target();
        if (t instanceof TargetConfig.Static s) {
            return staticFiles.responder(location, s, proxies::named);
        }
        if (t instanceof TargetConfig.Proxy p) {
            return proxies.responder(location, p);
        }
        return new ReturnResponder((TargetConfig.Return) t);
    }

    /** The rate-limit handler of a new connection, or null when no location limits anything. */
    ChannelHandler newRateLimitHandler() {
        return anyLimits ? rateLimits.newHandler() : null;
    }

    @Override
    public void close() {
        proxies.close();
        staticFiles.close();
    }
}
