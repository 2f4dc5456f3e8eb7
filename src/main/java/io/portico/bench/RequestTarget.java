package io.portico.bench;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** One URL to load, with the method and body to send to it. */
public record RequestTarget(URI uri, String method, byte[] body) {

    public RequestTarget {
        if (!"http".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null) {
            throw new IllegalArgumentException("url: %s (expected: http://host[:port]/path)".formatted(uri));
        }
        method = method.toUpperCase(Locale.ROOT);
        body = body == null ? new byte[0] : body;
    }

    /** Parses {@code url} ({@code http://} is assumed when no scheme is given). */
    public static RequestTarget of(String url, String method, byte[] body) {
        String u = url.contains("://") ? url : "http://" + url;
        try {
            return new RequestTarget(URI.create(u), method, body);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("url:")) {
                throw e;
            }
            throw new IllegalArgumentException("url: %s (expected: http://host[:port]/path)".formatted(url));
        }
    }

    public String host() {
        return uri.getHost();
    }

    public int port() {
        return uri.getPort() < 0 ? 80 : uri.getPort();
    }

    /** The Host header: host, plus the port when it isn't 80. */
    public String hostHeader() {
        String host = uri.getHost(); // URI keeps the brackets of an IPv6 literal
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return uri.getPort() < 0 || uri.getPort() == 80 ? h : h + ":" + uri.getPort();
    }

    /** The request-target sent on the request line. */
    public String pathAndQuery() {
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
    }

    @Override
    public String toString() {
        return body.length == 0 ? method + " " + uri : method + " " + uri + " (" + body.length + " bytes: "
                + new String(body, 0, Math.min(body.length, 40), StandardCharsets.UTF_8) + ")";
    }
}
