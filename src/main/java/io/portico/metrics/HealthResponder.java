package io.portico.metrics;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;

/**
 * A {@code health = true} location, for a load balancer's health check: 200 while the server takes traffic, 503
 * from the moment it starts draining (SIGTERM), so that a balancer takes it out before its listeners close (as
 * HAProxy's {@code monitor-uri} with {@code monitor fail} and nginx-plus' drain do). Answered on the event loop:
 * it reads one volatile field.
 */
public final class HealthResponder implements Responder {
    private static final byte[] OK = "ok\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DRAINING = "draining\n".getBytes(StandardCharsets.US_ASCII);
    private final BooleanSupplier draining;

    public HealthResponder(BooleanSupplier draining) {
        this.draining = draining;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        if (AdminResponses.getOrHead(client, request)) {
            boolean down = draining.getAsBoolean();
            HttpResponseStatus status = down ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.OK;
            AdminResponses.write(client.channel(), status, "text/plain; charset=utf-8", down ? DRAINING : OK);
        }
        return Exchange.DISCARD_BODY;
    }
}
