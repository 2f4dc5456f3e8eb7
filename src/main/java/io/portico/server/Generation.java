package io.portico.server;

import io.netty.channel.EventLoopGroup;
import io.portico.config.ListenAddress;
import io.portico.config.ListenerConfig;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.metrics.LocationMeters;
import io.portico.ratelimit.RateLimits;
import io.portico.route.HostRouter;
import io.portico.tls.ServerTls;
import io.portico.tls.TlsUnavailableException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * One configuration as it runs: its modules ({@link Targets}), each listener's router and TLS context, the trusted
 * proxies. Built whole off the event loops and never changed after; {@link PorticoServer} holds the current one in
 * one {@code AtomicReference}, and a reload replaces it in one step.
 *
 * <p>Who reads which: a connection's pipeline is built from the generation current when it was accepted (its TLS
 * certificates, HTTP/2 settings, header limits and timers); each request takes the current one once, at its head
 * ({@link RequestContextHandler}), and keeps it in its {@link RequestContext} until its response has ended. So a
 * request in flight (a WebSocket included) finishes on the routes, zones and pools it began with, while the next
 * request on the same keep-alive connection is routed, limited and proxied by the new configuration.
 */
final class Generation {
    final PorticoConfig config;
    /** The modules; null for a generation built by hand around a router (tests). */
    final Targets targets;
    /** Null when nothing limits (tests); a server's generations always have theirs. */
    final RateLimits rateLimits;
    final ClientAddresses addresses;
    private final Function<LocationConfig, LocationMeters> meters;
    /** By listen address: a connection's pipeline stages and the router of its requests. */
    private final Map<ListenAddress, ClientChannelInitializer> listeners = new HashMap<>();

    private Generation(PorticoConfig config, Targets targets, RateLimits rateLimits,
            Function<LocationConfig, LocationMeters> meters) {
        this.config = config;
        this.targets = targets;
        this.rateLimits = rateLimits;
        this.addresses = new ClientAddresses(config.trustedProxies());
        this.meters = meters;
    }

    /**
     * Builds the generation of {@code config}, taking over from {@code previous} (null at start) the zones and
     * pools whose definition did not change. Reads certificates and may connect to a shared zone's store: call it
     * off the event loops. On failure nothing it started is left running.
     */
    static Generation build(PorticoConfig config, Generation previous, ServerParts parts, EventLoopGroup group)
            throws ListenException {
        Targets before = previous == null ? null : previous.targets;
        Targets targets = Targets.start(config, group, parts.metrics(), parts.state(), before);
        try {
            Generation g = new Generation(config, targets, targets.rateLimits(), targets::meters);
            // One router for every listener, unless some host answers on only some of them.
            boolean perListener = config.hosts().stream().anyMatch(h -> !h.listen().isEmpty() || h.isDefault());
            HostRouter shared = perListener ? null
                    : HostRouter.build(config.locations(), config.hosts(), null, targets::responder);
            for (ListenerConfig listener : config.listen()) {
                HostRouter router = perListener
                        ? HostRouter.build(config.locations(), config.hosts(), listener.address(), targets::responder)
                        : shared;
                g.add(parts, listener, router, listener.tls().isPresent() ? tls(listener) : null);
            }
            return g;
        } catch (ListenException | RuntimeException e) {
            targets.closeExcept(before);
            throw e;
        }
    }

    /** A generation of one listener (address {@code null}) around a router built by hand: pipeline tests. */
    static Generation of(PorticoConfig config, HostRouter router, RateLimits rateLimits,
            Function<LocationConfig, LocationMeters> meters, ServerParts parts, ServerTls tls) {
        Generation g = new Generation(config, null, rateLimits, meters);
        g.add(parts, new ListenerConfig(null, java.util.Optional.empty(), false), router, tls);
        return g;
    }

    private void add(ServerParts parts, ListenerConfig listener, HostRouter router, ServerTls tls) {
        listeners.put(listener.address(), new ClientChannelInitializer(parts, this, listener.address(), router, tls,
                listener.http2() ? config.http2() : null));
    }

    private static ServerTls tls(ListenerConfig listener) throws ListenException {
        try {
            return ServerTls.of(listener.tls().get(), listener.http2());
        } catch (SSLException | TlsUnavailableException e) {
            throw new ListenException("cannot listen on " + listener + ": " + e.getMessage(), e);
        }
    }

    /** The pipeline builder of connections accepted on {@code address}; null when this generation has no such one. */
    ClientChannelInitializer listener(ListenAddress address) {
        return listeners.get(address);
    }

    /** The router of requests that came on {@code address}. */
    HostRouter router(ListenAddress address) {
        return listeners.get(address).router();
    }

    /** Each listener's TLS context, by address, in configuration order (start-up log). */
    Map<ListenAddress, ServerTls> tls() {
        Map<ListenAddress, ServerTls> out = new LinkedHashMap<>();
        for (ListenerConfig l : config.listen()) {
            ServerTls tls = listeners.get(l.address()).tls();
            if (tls != null) {
                out.put(l.address(), tls);
            }
        }
        return out;
    }

    LocationMeters meters(LocationConfig location) {
        return meters.apply(location);
    }
}
