package io.portico.route;

import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;

/**
 * A request as the route stage sees it. The server's record of each request (under {@link ClientExchange#KEY}) is
 * one; the stage asks it for the routers to use rather than knowing the server's configuration generations and
 * listeners, so that {@code route} does not depend on {@code server}.
 */
public interface Routable extends ClientExchange {

    /**
     * The virtual hosts of the configuration this request is served by (the one it started under, whatever a
     * reload did since), for the listener it came on.
     */
    HostRouter hosts();

    /**
     * The name the client gave in SNI when its connection's TLS handshake began (an HTTP/2 stream's connection is
     * its parent); null on a plain connection or when the client sent none.
     */
    String sniName();

    /** Records the location the request matched: what {@link #route()} gives every later stage and the responder. */
    void route(Route route);
}
