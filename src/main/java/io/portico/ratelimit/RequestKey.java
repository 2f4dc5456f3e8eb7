package io.portico.ratelimit;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.portico.exchange.ClientExchange;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a zone counts requests by: {@code client-ip}, {@code path}, {@code host}, {@code header:NAME}, or parts
 * joined by {@code +} such as {@code client-ip+path}. Like nginx, a request whose key is empty is not limited.
 *
 * <p>A key of just {@code client-ip} is the IPv4 address as an int, or the IPv6 address masked to the zone's
 * IPv6 prefix, since one IPv6 client usually owns a whole /64.
 */
final class RequestKey {

    private enum Kind { CLIENT_IP, PATH, HOST, HEADER }

    private record Part(Kind kind, String header) {}

    private final String spec;
    private final List<Part> parts;
    private final int ipv6Prefix;

    private RequestKey(String spec, List<Part> parts, int ipv6Prefix) {
        this.spec = spec;
        this.parts = parts;
        this.ipv6Prefix = ipv6Prefix;
    }

    static RequestKey parse(String zone, String spec, int ipv6Prefix) {
        List<Part> parts = new ArrayList<>();
        for (String text : spec.split("\\+", -1)) {
            String part = text.trim();
            String lower = part.toLowerCase(Locale.ROOT);
            if (lower.equals("client-ip")) {
                parts.add(new Part(Kind.CLIENT_IP, null));
            } else if (lower.equals("path")) {
                parts.add(new Part(Kind.PATH, null));
            } else if (lower.equals("host")) {
                parts.add(new Part(Kind.HOST, null));
            } else if (lower.startsWith("header:") && part.length() > "header:".length()) {
                parts.add(new Part(Kind.HEADER, part.substring("header:".length()).trim()));
            } else {
                throw new IllegalArgumentException(String.format(
                        "%s.key: %s (expected: client-ip, path, host or header:NAME, joined by +)", zone, spec));
            }
        }
        if (ipv6Prefix < 0 || ipv6Prefix > 128) {
            throw new IllegalArgumentException(String.format("%s.ipv6Prefix: %s (expected: 0..128)", zone, ipv6Prefix));
        }
        return new RequestKey(spec, List.copyOf(parts), ipv6Prefix);
    }

    /** Whether the client address is part of the key: then a proxy Portico does not trust is one client. */
    boolean usesClientIp() {
        return parts.stream().anyMatch(p -> p.kind() == Kind.CLIENT_IP);
    }

    /** The key of this request, or null when it is empty (the request is not limited). */
    ClientKey of(ClientExchange client, HttpRequest request) {
        if (parts.size() == 1 && parts.get(0).kind() == Kind.CLIENT_IP) {
            return address(client.clientAddress());
        }
        StringBuilder key = new StringBuilder(64);
        boolean empty = true;
        for (int i = 0; i < parts.size(); i++) {
            if (i > 0) {
                key.append('\n'); // cannot occur inside a header value or a path
            }
            String value = text(parts.get(i), client, request);
            empty &= value.isEmpty();
            key.append(value);
        }
        return empty ? null : ClientKey.text(key.toString());
    }

    private String text(Part part, ClientExchange client, HttpRequest request) {
        return switch (part.kind()) {
            case CLIENT_IP -> {
                ClientKey address = address(client.clientAddress());
                yield address == null ? "" : address.toString();
            }
            case PATH -> client.path() == null ? "" : client.path();
            case HOST -> request.headers().get(HttpHeaderNames.HOST, "");
            case HEADER -> request.headers().get(part.header(), "");
        };
    }

    private ClientKey address(InetSocketAddress socket) {
        InetAddress address = socket == null ? null : socket.getAddress();
        if (address == null) {
            return null;
        }
        if (address instanceof Inet4Address) {
            // Inet4Address's hash code is its address as an int (big-endian), which getAddress() would only
            // rebuild from a fresh byte array on every request; RequestKeyTest pins the two as equal.
            return ClientKey.ipv4(address.hashCode());
        }
        byte[] bytes = address.getAddress();
        long high = 0;
        long low = 0;
        for (int i = 0; i < 8; i++) {
            high = (high << 8) | (bytes[i] & 0xffL);
            low = (low << 8) | (bytes[i + 8] & 0xffL);
        }
        return ClientKey.ipv6(high & mask(ipv6Prefix), low & mask(ipv6Prefix - 64));
    }

    private static long mask(int bits) {
        if (bits <= 0) {
            return 0;
        }
        return bits >= 64 ? -1L : -1L << (64 - bits);
    }

    @Override
    public String toString() {
        return spec;
    }
}
