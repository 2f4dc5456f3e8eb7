package io.portico.proxy;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.portico.config.TargetConfig;
import io.portico.config.TextTemplate;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Variables;
import io.portico.upstream.CgiParams;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;

/**
 * The CGI variables of a uwsgi or FastCGI request that come from the client connection rather than the forwarded
 * head, as nginx's {@code uwsgi_params} and {@code fastcgi_params} have them (FastCGI adds the script's:
 * {@code SCRIPT_FILENAME} from {@code fastcgi-root}), then the location's {@code params} (which replace a standard variable of
 * the same name, and keep a client header of that {@code HTTP_} name from being sent). The variables derived from
 * the head ({@code REQUEST_METHOD}, {@code PATH_INFO}, {@code HTTP_*}, ...) are the encoders', see
 * {@code upstream.CgiEnvironment}. Built once per exchange; every attempt sends the same. What a client
 * connection's requests share is formatted once per connection.
 */
final class CgiVariables {
    /** The variables a client connection's requests share, formatted on its first CGI request. */
    private static final AttributeKey<ConnectionVariables> CONNECTION = AttributeKey.valueOf("portico.cgiConnection");

    private CgiVariables() {}

    static CgiParams of(ClientExchange client, HttpRequest request, ProxySettings settings, boolean fastcgi) {
        CgiParams.Builder b = CgiParams.builder();
        if (fastcgi) {
            script(b, ForwardedRequest.path(client, settings), settings.target());
        }
        b.set("SERVER_PROTOCOL", client.protocol(request));
        b.set("REQUEST_SCHEME", client.secure() ? "https" : "http");
        if (client.secure()) {
            b.set("HTTPS", "on");
        }
        InetAddress clientAddress = client.clientAddress().getAddress();
        b.set("REMOTE_ADDR",
                clientAddress == client.peerAddress().getAddress() ? client.peerIp() : clientAddress.getHostAddress());
        ConnectionVariables connection = connection(client);
        b.set("REMOTE_PORT", connection.remotePort);
        if (connection.serverAddr != null) {
            b.set("SERVER_ADDR", connection.serverAddr);
            b.set("SERVER_PORT", connection.serverPort);
        }
        b.set("SERVER_NAME", Variables.host(client, request));
        Map<String, TextTemplate> params = settings.target().params();
        if (!params.isEmpty()) {
            for (Map.Entry<String, TextTemplate> p : params.entrySet()) {
                b.set(p.getKey(), Variables.expand(p.getValue(), client, request));
            }
        }
        return b.build();
    }

    /**
     * REMOTE_PORT, SERVER_ADDR and SERVER_PORT of the client connection, kept on its channel: in front of an app
     * server every request of a kept-alive connection needs them, and formatting an address and two ports each time
     * was a visible share of the request's time. Checked against the addresses they were made from (a PROXY
     * protocol header sets the peer once, before the first request; an HTTP/2 stream is a channel of its own).
     */
    private static ConnectionVariables connection(ClientExchange client) {
        Attribute<ConnectionVariables> attr = client.channel().attr(CONNECTION);
        ConnectionVariables v = attr.get();
        InetSocketAddress peer = client.peerAddress();
        SocketAddress local = client.channel().localAddress();
        if (v == null || v.peer != peer || v.local != local) {
            v = new ConnectionVariables(peer, local);
            attr.set(v);
        }
        return v;
    }

    private static final class ConnectionVariables {
        final InetSocketAddress peer;
        final SocketAddress local;
        final String remotePort;
        final String serverAddr; // null when the connection is not over IP (a unix socket): no SERVER_ADDR/PORT
        final String serverPort;

        ConnectionVariables(InetSocketAddress peer, SocketAddress local) {
            this.peer = peer;
            this.local = local;
            this.remotePort = Integer.toString(peer.getPort());
            if (local instanceof InetSocketAddress inet) {
                serverAddr = inet.getAddress().getHostAddress();
                serverPort = Integer.toString(inet.getPort());
            } else {
                serverAddr = null;
                serverPort = null;
            }
        }
    }

    /**
     * nginx's fastcgi_params: the script is the decoded path ({@code $fastcgi_script_name}, the index appended to
     * a directory), its file under {@code fastcgi-root}. The normalized path has no dot segment and no encoded
     * separator beside one, so the file cannot be outside the root.
     */
    private static void script(CgiParams.Builder b, String path, TargetConfig.Proxy target) {
        String decoded = CgiParams.decodedPath(path);
        String script = decoded.endsWith("/") ? decoded + target.fastcgiIndex() : decoded;
        b.set("GATEWAY_INTERFACE", "CGI/1.1");
        b.set("SERVER_SOFTWARE", "portico");
        b.set("DOCUMENT_URI", decoded);
        b.set("SCRIPT_NAME", script);
        b.set("REDIRECT_STATUS", "200"); // php-cgi's force-redirect check, as nginx's fastcgi_params sets
        target.fastcgiRoot().ifPresent(root -> {
            String dir = root.toString();
            b.set("DOCUMENT_ROOT", dir);
            b.set("SCRIPT_FILENAME", (dir.endsWith("/") ? dir.substring(0, dir.length() - 1) : dir) + script);
        });
    }
}
