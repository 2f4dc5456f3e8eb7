package io.portico.server;

import io.netty.channel.EventLoopGroup;
import io.portico.config.ListenerConfig;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.metrics.LocationMeters;
import io.portico.ratelimit.RateLimits;
import io.portico.route.HostRouter;
import io.portico.tls.ServerTls;
import io.portico.tls.TlsUnavailableException;
import io.portico.transport.Transport;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
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
    private final Map<ListenerKey, ClientChannelInitializer> listeners = new HashMap<>();

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
    static Generation build(PorticoConfig config, Generation previous, ServerParts parts, EventLoopGroup group,
            Transport transport) throws ListenException {
        Targets before = previous == null ? null : previous.targets;
        Targets targets = Targets.start(config, group, transport, parts.metrics(), parts.state(), before);
        try {
            Generation g = new Generation(config, targets, targets.rateLimits(), targets::meters);
            // One router for every listener, unless some host answers on only some of them.
            boolean perListener = config.hosts().stream().anyMatch(h -> !h.listen().isEmpty() || h.isDefault());
            HostRouter shared = perListener ? null
                    : HostRouter.build(config.locations(), config.hosts(), null, targets::responder);
            List<ListenerKey> keys = ListenerKey.of(config.listen());
            for (int i = 0; i < keys.size(); i++) {
                ListenerConfig listener = config.listen().get(i);
                HostRouter router = perListener
                        ? HostRouter.build(config.locations(), config.hosts(), listener.address(), targets::responder)
                        : shared;
                g.add(parts, keys.get(i), listener, router, listener.tls().isPresent() ? tls(listener) : null);
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
        g.add(parts, null, new ListenerConfig(null, java.util.Optional.empty(), false), router, tls);
        return g;
    }

    private void add(ServerParts parts, ListenerKey key, ListenerConfig listener, HostRouter router, ServerTls tls) {
        listeners.put(key, new ClientChannelInitializer(parts, this, key, router, tls,
                listener.http2() ? config.http2() : null, listener.proxyProtocol().orElse(null)));
    }

    private static ServerTls tls(ListenerConfig listener) throws ListenException {
        try {
            return ServerTls.of(listener.tls().get(), listener.http2());
        } catch (SSLException | TlsUnavailableException e) {
            throw new ListenException("cannot listen on " + listener + ": " + e.getMessage(), e);
        }
    }

    /** The pipeline builder of connections accepted on listener {@code key}; null when this generation has none. */
    ClientChannelInitializer listener(ListenerKey key) {
        return listeners.get(key);
    }

    /** The router of requests that came on listener {@code key}. */
    HostRouter router(ListenerKey key) {
        return listeners.get(key).router();
    }

    /** Each listener's key, in configuration order. */
    List<ListenerKey> listenerKeys() {
        return ListenerKey.of(config.listen());
    }

    /** Each TLS listener's context, in configuration order (start-up log). */
    Map<ListenerKey, ServerTls> tls() {
        Map<ListenerKey, ServerTls> out = new LinkedHashMap<>();
        for (ListenerKey key : listenerKeys()) {
            ServerTls tls = listeners.get(key).tls();
            if (tls != null) {
                out.put(key, tls);
            }
        }
        return out;
    }

    LocationMeters meters(LocationConfig location) {
        return meters.apply(location);
    }
}
