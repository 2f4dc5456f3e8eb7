package io.portico.ratelimit;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.Cidr;
import io.portico.config.LocationConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A location's {@code allow} / {@code deny} lists (nginx's access module), checked before its responder. The
 * rule is not nginx's first-match-in-order but a fixed one that reads the same whatever the order of the lists:
 * a client is served when {@code allow} is empty or contains it, and {@code deny} does not contain it (so deny
 * carves holes in allow). The address is the real client, as rate limits see it (X-Forwarded-For is believed only
 * from trusted proxies). A location without lists keeps its own responder: no check at all on its requests.
 */
public final class AccessRules implements Responder {
    private final List<Cidr> allow;
    private final List<Cidr> deny;
    private final Responder next;

    private AccessRules(List<Cidr> allow, List<Cidr> deny, Responder next) {
        this.allow = allow;
        this.deny = deny;
        this.next = next;
    }

    /** {@code responder} itself when the location has no lists, else the responder behind the lists. */
    public static Responder guard(LocationConfig location, Responder responder) {
        return location.restricted() ? new AccessRules(location.allow(), location.deny(), responder) : responder;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        if (permits(client.clientAddress())) {
            return next.open(client, request);
        }
        String note = client.log().note(); // keep a rate-limit zone's note ahead of it
        client.log().note("-".equals(note) ? "access=denied" : note + " access=denied");
        client.refuse(HttpResponseStatus.FORBIDDEN, null, false);
        return Exchange.DISCARD_BODY;
    }

    boolean permits(InetSocketAddress socket) {
        InetAddress address = socket == null ? null : socket.getAddress();
        if (address == null) {
            return false; // a restricted location serves only clients it can place
        }
        return (allow.isEmpty() || Cidr.anyContains(allow, address)) && !Cidr.anyContains(deny, address);
    }
}
