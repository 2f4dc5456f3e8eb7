package io.portico.config;

/** Parses "host:port" text; hosts stay text here, and only upstreams are resolved, once, at load. */
final class Addresses {
    private Addresses() {}

    static ListenAddress listen(String text) {
        HostPort hp = hostPort(text);
        if (!hp.host.equals("*") && !hp.host.equals("localhost") && !InetAddressLiteral.isLiteral(hp.host)) {
            throw new IllegalArgumentException("is not an IP address");
        }
        return new ListenAddress(hp.host.equals("localhost") ? "127.0.0.1" : hp.host, hp.port);
    }

    record HostPort(String host, int port) {}

    static HostPort hostPort(String text) {
        String host;
        String port;
        if (text.startsWith("[")) {
            int end = text.indexOf(']');
            if (end < 0 || end + 1 >= text.length() || text.charAt(end + 1) != ':') {
                throw new IllegalArgumentException("has no port");
            }
            host = text.substring(1, end);
            port = text.substring(end + 2);
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException("has no port");
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("has no host");
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("has a bad port");
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("has a port out of range");
        }
        return new HostPort(host, p);
    }
}
