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

/** The modules behind the locations (static files, proxies, rate limits), started with the server. */
final class Targets implements AutoCloseable {
    private final PorticoConfig config;

    private Targets(PorticoConfig config) {
        this.config = config;
    }

    static Targets start(PorticoConfig config, EventLoopGroup group) {
        return new Targets(config);
    }

    Responder responder(LocationConfig location) {
        TargetConfig t = location.target();
        if (t instanceof TargetConfig.Return r) {
            return new ReturnResponder(r);
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
    public void close() {}
}
