package io.portico.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import io.portico.route.Exchange;
import io.portico.route.Responder;
import io.portico.route.ReturnResponder;
import io.netty.handler.codec.http.HttpContent;
import io.portico.staticfile.StaticFiles;

/** The modules behind the locations (static files, proxies, rate limits), started with the server. */
final class Targets implements AutoCloseable {
    private final PorticoConfig config;
    private final StaticFiles staticFiles;

    private Targets(PorticoConfig config) {
        this.config = config;
        this.staticFiles = StaticFiles.create(config.staticFiles());
    }

    static Targets start(PorticoConfig config, EventLoopGroup group) {
        return new Targets(config);
    }

    Responder responder(LocationConfig location) {
        TargetConfig t = location.target();
        if (t instanceof TargetConfig.Return r) {
            return new ReturnResponder(r);
        }
        if (t instanceof TargetConfig.Static s) {
            // named upstreams (try-files "@app") arrive with the proxy module; until then such a fallback is a 500
            return staticFiles.responder(location, s, name -> null);
        }
        return (client, request) -> {
            client.sendError(HttpResponseStatus.NOT_IMPLEMENTED);
            return HttpContent::release;
        };
    }

    ChannelHandler newRateLimitHandler() {
        return null;
    }

    @Override
    public void close() {
        staticFiles.close();
    }
}
