package io.portico.bench;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/** One URL to load, with the method and body to send to it. */
public record RequestTarget(URI uri, String method, byte[] body) {

    public RequestTarget {
        if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("url: %s (expected: http[s]://host[:port]/path)".formatted(uri));
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
            throw new IllegalArgumentException("url: %s (expected: http[s]://host[:port]/path)".formatted(url));
        }
    }

    public String host() {
        return uri.getHost();
    }

    /** Whether this is an {@code https://} URL: the connection speaks TLS, SNI from {@link #host()}. */
    public boolean secure() {
        return "https".equalsIgnoreCase(uri.getScheme());
    }

    public int port() {
        return uri.getPort() < 0 ? defaultPort() : uri.getPort();
    }

    private int defaultPort() {
        return secure() ? 443 : 80;
    }

    /** The host name as sent in SNI: without the brackets of an IPv6 literal. */
    public String sniHost() {
        String host = uri.getHost();
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    /** The Host header: host, plus the port when it isn't the scheme's default. */
    public String hostHeader() {
        String host = uri.getHost(); // URI keeps the brackets of an IPv6 literal
        String h = host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
        return uri.getPort() < 0 || uri.getPort() == defaultPort() ? h : h + ":" + uri.getPort();
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
