package io.portico.config;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/** Where an upstream server listens: a TCP address resolved at load, or a unix domain socket. */
public sealed interface UpstreamAddress {

    /** The Host header a request made up for this server carries: host:port, or localhost for a socket file. */
    String hostHeader();

    record Tcp(String host, InetSocketAddress address) implements UpstreamAddress {
        @Override
        public String hostHeader() {
            return host + ":" + address.getPort();
        }

        @Override
        public String toString() {
            return hostHeader();
        }
    }

    record Unix(Path path) implements UpstreamAddress {
        @Override
        public String hostHeader() {
            return "localhost";
        }

        @Override
        public String toString() {
            return "unix:" + path;
        }
    }
}
