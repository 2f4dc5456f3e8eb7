package io.portico.config;

import java.net.InetSocketAddress;
import java.nio.file.Path;

/** Where an upstream server listens: a TCP address resolved at load, or a unix domain socket. */
public sealed interface UpstreamAddress {

    record Tcp(String host, InetSocketAddress address) implements UpstreamAddress {
        @Override
        public String toString() {
            return host + ":" + address.getPort();
        }
    }

    record Unix(Path path) implements UpstreamAddress {
        @Override
        public String toString() {
            return "unix:" + path;
        }
    }
}
