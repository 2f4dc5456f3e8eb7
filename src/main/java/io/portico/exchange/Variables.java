package io.portico.exchange;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.portico.config.TextTemplate;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Locale;

/**
 * The values of a {@link TextTemplate}'s variables for one request, with nginx's meaning. A template without
 * variables costs nothing: its text is returned as it is.
 */
public final class Variables {
    private Variables() {}

    /** {@code template} with each variable replaced by its value for {@code request} from {@code client}. */
    public static String expand(TextTemplate template, ClientExchange client, HttpRequest request) {
        if (template.isLiteral()) {
            return template.text();
        }
        StringBuilder out = new StringBuilder(template.text().length() + 64);
        for (TextTemplate.Part part : template.parts()) {
            if (part instanceof TextTemplate.Literal literal) {
                out.append(literal.text());
            } else if (part instanceof TextTemplate.Field field) {
                out.append(field(field, request));
            } else {
                out.append(value(((TextTemplate.Var) part).variable(), client, request));
            }
        }
        return out.toString();
    }

    /** {@code $http_NAME}: the header's first value; {@code $cookie_NAME}: the cookie's value; else empty. */
    static String field(TextTemplate.Field field, HttpRequest request) {
        if (field.source() == TextTemplate.Field.Source.HEADER) {
            return request.headers().get(field.name(), "");
        }
        for (String header : request.headers().getAll(HttpHeaderNames.COOKIE)) {
            String value = cookie(header, field.name());
            if (value != null) {
                return value;
            }
        }
        return "";
    }

    /** The value of cookie {@code name} in one Cookie header ({@code a=1; b=2}), or null. */
    private static String cookie(String header, String name) {
        int i = 0;
        while (i < header.length()) {
            int end = header.indexOf(';', i);
            end = end < 0 ? header.length() : end;
            int eq = header.indexOf('=', i);
            if (eq > 0 && eq < end && header.substring(i, eq).strip().equals(name)) {
                String v = header.substring(eq + 1, end).strip();
                return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v;
            }
            i = end + 1;
        }
        return null;
    }

    static String value(TextTemplate.Variable variable, ClientExchange client, HttpRequest request) {
        return switch (variable) {
            case SCHEME -> client.secure() ? "https" : "http";
            case HOST -> host(client, request);
            case REQUEST_URI -> request.uri();
            case URI -> client.path(); // normalized, as every decision was made on it (nginx's $uri too)
            case ARGS -> args(request.uri());
            case REMOTE_ADDR -> remoteAddr(client);
        };
    }

    /**
     * nginx's {@code $host}: the host of an absolute-form request line, else the Host header, without the port and
     * lower-cased; with neither (HTTP/1.0), the address the client connected to (nginx: the server name). Public
     * for the CGI variables' SERVER_NAME, which asks for it straight, not through a template.
     */
    public static String host(ClientExchange client, HttpRequest request) {
        String uri = request.uri();
        String authority = null;
        int scheme = uri.startsWith("/") ? -1 : uri.indexOf("://");
        if (scheme > 0) {
            int end = scheme + 3;
            while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
                end++;
            }
            authority = uri.substring(scheme + 3, end);
            int at = authority.lastIndexOf('@');
            authority = at < 0 ? authority : authority.substring(at + 1);
        }
        if (authority == null || authority.isEmpty()) {
            authority = request.headers().get(HttpHeaderNames.HOST);
        }
        if (authority == null || authority.isEmpty()) {
            SocketAddress local = client.channel().localAddress();
            return local instanceof InetSocketAddress inet ? literal(inet.getAddress()) : "";
        }
        String host;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            host = close < 0 ? authority : authority.substring(0, close + 1);
        } else {
            int colon = authority.indexOf(':');
            host = colon < 0 ? authority : authority.substring(0, colon);
        }
        return host.toLowerCase(Locale.ROOT);
    }

    private static String literal(InetAddress address) {
        String ip = address.getHostAddress();
        return ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip;
    }

    /** nginx's {@code $args}: the query without its {@code ?}, empty when there is none. */
    static String args(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? "" : uri.substring(q + 1);
    }

    private static String remoteAddr(ClientExchange client) {
        InetAddress address = client.clientAddress().getAddress();
        return address == client.peerAddress().getAddress() ? client.peerIp() : address.getHostAddress();
    }
}
