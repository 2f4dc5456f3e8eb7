package io.portico.proxy;

import io.netty.handler.codec.http.HttpRequest;
import io.portico.config.TargetConfig;
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
 * The CGI variables of a uwsgi or FastCGI request that come from the client connection rather than the forwarded
 * head, as nginx's {@code uwsgi_params} and {@code fastcgi_params} have them (FastCGI adds the script's:
 * {@code SCRIPT_FILENAME} from {@code fastcgi-root}), then the location's {@code params} (which replace a standard variable of
 * the same name, and keep a client header of that {@code HTTP_} name from being sent). The variables derived from
 * the head ({@code REQUEST_METHOD}, {@code PATH_INFO}, {@code HTTP_*}, ...) are the encoders', see
 * {@code upstream.CgiEnvironment}. Built once per exchange; every attempt sends the same.
 */
final class CgiVariables {
    private static final TextTemplate HOST =
            new TextTemplate("$host", List.of(new TextTemplate.Var(TextTemplate.Variable.HOST)));

    private CgiVariables() {}

    static CgiParams of(ClientExchange client, HttpRequest request, ProxySettings settings, boolean fastcgi) {
        CgiParams.Builder b = CgiParams.builder();
        if (fastcgi) {
            script(b, ForwardedRequest.path(client, settings), settings.target());
        }
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
