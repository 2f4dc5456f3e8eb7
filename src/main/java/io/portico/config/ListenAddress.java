package io.portico.config;

import java.net.InetSocketAddress;

/** One address a listener binds: {@code "127.0.0.1:8080"}, {@code "[::1]:8080"}, {@code "*:8080"}. */
public record ListenAddress(String host, int port) {

    /** The socket address to bind; {@code *} binds every interface. Literal addresses only, so no DNS happens. */
    public InetSocketAddress toSocketAddress() {
        return host.equals("*") ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
