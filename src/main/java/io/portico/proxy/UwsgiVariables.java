package io.portico.proxy;

import io.netty.handler.codec.http.HttpRequest;
import io.portico.config.TextTemplate;
import io.portico.route.ClientExchange;
import io.portico.route.Variables;
import io.portico.upstream.CgiParams;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;

/**
 * The CGI variables of a uwsgi request that come from the client connection rather than the forwarded head, as
 * nginx's {@code uwsgi_params} has them, then the location's {@code params} (which replace a standard variable of
 * the same name, and keep a client header of that {@code HTTP_} name from being sent). The variables derived from
 * the head ({@code REQUEST_METHOD}, {@code PATH_INFO}, {@code HTTP_*}, ...) are the encoder's, see
 * {@code upstream.UwsgiEncoder}. Built once per exchange; every attempt sends the same.
 */
final class UwsgiVariables {
    private static final TextTemplate HOST =
            new TextTemplate("$host", List.of(new TextTemplate.Var(TextTemplate.Variable.HOST)));

    private UwsgiVariables() {}

    static CgiParams of(ClientExchange client, HttpRequest request, ProxySettings settings) {
        CgiParams.Builder b = CgiParams.builder();
        b.set("SERVER_PROTOCOL", request.protocolVersion().text());
        b.set("REQUEST_SCHEME", client.secure() ? "https" : "http");
        if (client.secure()) {
            b.set("HTTPS", "on");
        }
        InetAddress clientAddress = client.clientAddress().getAddress();
        b.set("REMOTE_ADDR",
                clientAddress == client.peerAddress().getAddress() ? client.peerIp() : clientAddress.getHostAddress());
        b.set("REMOTE_PORT", Integer.toString(client.peerAddress().getPort()));
        SocketAddress local = client.channel().localAddress();
        if (local instanceof InetSocketAddress inet) {
            b.set("SERVER_ADDR", inet.getAddress().getHostAddress());
            b.set("SERVER_PORT", Integer.toString(inet.getPort()));
        }
        b.set("SERVER_NAME", Variables.expand(HOST, client, request));
        for (Map.Entry<String, TextTemplate> p : settings.target().params().entrySet()) {
            b.set(p.getKey(), Variables.expand(p.getValue(), client, request));
        }
        return b.build();
    }
}
