package io.portico.upstream;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Consistent hashing (ketama style): each server owns {@code 160 * weight} points on a ring; a key goes to the first
 * usable server clockwise from its hash, so removing a server moves only its own keys. IP_HASH uses the same ring
 * keyed by the client's /24 (IPv4) or whole address (IPv6), as nginx's ip_hash keys by the first three octets.
 */
final class HashRing implements Balancer {
    private static final int POINTS_PER_WEIGHT = 160;

    private final List<UpstreamServer> servers;
    private final boolean byClientAddress;
    private final long[] points;
    private final int[] owners;

    HashRing(List<UpstreamServer> servers, boolean byClientAddress) {
        this.servers = List.copyOf(servers);
        this.byClientAddress = byClientAddress;
        int total = servers.stream().mapToInt(s -> s.weight() * POINTS_PER_WEIGHT).sum();
        long[][] pairs = new long[total][];
        int k = 0;
        for (int i = 0; i < servers.size(); i++) {
            UpstreamServer s = servers.get(i);
            for (int p = 0; p < s.weight() * POINTS_PER_WEIGHT; p++) {
                pairs[k++] = new long[] {hash(s.address() + "-" + p), i};
            }
        }
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        points = new long[total];
        owners = new int[total];
        for (int i = 0; i < total; i++) {
            points[i] = pairs[i][0];
            owners[i] = (int) pairs[i][1];
        }
    }

    @Override
    public UpstreamServer pick(Selection selection) {
        if (points.length == 0) {
            return null;
        }
        long h = byClientAddress ? hash(clientKey(selection.client())) : hash(selection.hashKey());
        int i = Arrays.binarySearch(points, h);
        if (i < 0) {
            i = -i - 1;
        }
        for (int k = 0; k < points.length; k++) {
            UpstreamServer s = servers.get(owners[(i + k) % points.length]);
            if (selection.usable(s)) {
                return s;
            }
        }
        return null;
    }

    private static String clientKey(InetAddress client) {
        if (client == null) {
            return "";
        }
        byte[] a = client.getAddress();
        return client instanceof Inet4Address
                ? (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff)
                : client.getHostAddress();
    }

    /** FNV-1a over UTF-8 with a murmur3 finalizer, so nearby keys land far apart on the ring. */
    static long hash(String key) {
        long h = 0xcbf29ce484222325L;
        for (byte b : (key == null ? "" : key).getBytes(StandardCharsets.UTF_8)) {
            h ^= b;
            h *= 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb93fe53a88cbL;
        h ^= h >>> 33;
        return h;
    }
}
