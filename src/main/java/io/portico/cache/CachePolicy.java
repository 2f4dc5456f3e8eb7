package io.portico.cache;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.portico.config.CacheConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What may be stored and for how long (RFC 9111 for a shared cache, at its strictest where nginx is lax):
 * <ul>
 *   <li>never a response with Set-Cookie, {@code Cache-Control: private} or {@code no-store}, or {@code Vary: *},
 *       whatever {@code honor-cache-control} says; never a 206;</li>
 *   <li>never the answer to a request with Authorization, unless it says {@code public} or {@code s-maxage};</li>
 *   <li>with {@code honor-cache-control}: {@code no-cache} and a zero lifetime are not stored; {@code s-maxage},
 *       then {@code max-age}, then Expires (against Date) give the lifetime, less the upstream's Age;</li>
 *   <li>otherwise the location's {@code valid} for the status.</li>
 * </ul>
 */
final class CachePolicy {
    /** Statuses a header-given lifetime may cache although valid does not list them (RFC 9110's heuristic set). */
    private static final Set<Integer> CACHEABLE_BY_DEFAULT = Set.of(200, 203, 204, 300, 301, 308, 404, 405, 410, 414,
            501);

    private CachePolicy() {}

    /**
     * Whether the cache may look at {@code request} at all: a cached method, no body, no Range (a partial answer is
     * never stored, and serving ranges from an entry is not done), no protocol upgrade.
     */
    static boolean cacheableRequest(CacheConfig config, HttpRequest request) {
        HttpHeaders h = request.headers();
        return config.methods().contains(request.method().name())
                && !HttpUtil.isTransferEncodingChunked(request) && HttpUtil.getContentLength(request, 0L) == 0
                && !h.contains(HttpHeaderNames.RANGE) && !h.contains(HttpHeaderNames.UPGRADE);
    }

    /** How long {@code response} to {@code request} stays fresh, or empty when it must not be stored. */
    static Optional<Duration> lifetime(CacheConfig config, HttpRequest request, HttpResponse response) {
        int status = response.status().code();
        HttpHeaders h = response.headers();
        if (status == 206 || h.contains(HttpHeaderNames.SET_COOKIE) || !request.method().equals(HttpMethod.GET)) {
            return Optional.empty();
        }
        if (varyNames(h) == null) {
            return Optional.empty();
        }
        List<String> cc = directives(h);
        if (has(cc, "private") || has(cc, "no-store")) {
            return Optional.empty();
        }
        boolean shared = has(cc, "public") || value(cc, "s-maxage") != null;
        if (request.headers().contains(HttpHeaderNames.AUTHORIZATION) && !shared) {
            return Optional.empty();
        }
        Optional<Duration> valid = config.validFor(status);
        if (config.honorCacheControl()) {
            if (has(cc, "no-cache")) {
                return Optional.empty();
            }
            Optional<Duration> given = headerLifetime(cc, h);
            if (given.isPresent()) {
                if (valid.isEmpty() && !CACHEABLE_BY_DEFAULT.contains(status)) {
                    return Optional.empty();
                }
                Duration d = given.get().minusSeconds(upstreamAge(h));
                return d.isNegative() || d.isZero() ? Optional.empty() : Optional.of(d);
            }
        }
        return valid.filter(d -> !d.isZero());
    }

    /** The Age the upstream sent, in seconds (0 when none or not a number). */
    static long upstreamAge(HttpHeaders h) {
        String age = h.get(HttpHeaderNames.AGE);
        try {
            return age == null ? 0 : Math.max(0, Long.parseLong(age.strip()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Optional<Duration> headerLifetime(List<String> cc, HttpHeaders h) {
        Long seconds = value(cc, "s-maxage");
        if (seconds == null) {
            seconds = value(cc, "max-age");
        }
        if (seconds != null) {
            return Optional.of(Duration.ofSeconds(Math.max(0, seconds)));
        }
        String expires = h.get(HttpHeaderNames.EXPIRES);
        if (expires == null) {
            return Optional.empty();
        }
        Date exp = DateFormatter.parseHttpDate(expires);
        if (exp == null) {
            return Optional.of(Duration.ZERO); // an invalid Expires means already expired (RFC 9111 5.3)
        }
        String dateHeader = h.get(HttpHeaderNames.DATE);
        Date date = dateHeader == null ? null : DateFormatter.parseHttpDate(dateHeader);
        long now = date != null ? date.getTime() : System.currentTimeMillis();
        return Optional.of(Duration.ofMillis(Math.max(0, exp.getTime() - now)));
    }

    /** The lower-cased request header names of Vary; empty when none; null for {@code Vary: *}. */
    static List<String> varyNames(HttpHeaders h) {
        List<String> names = new ArrayList<>();
        for (String v : h.getAll(HttpHeaderNames.VARY)) {
            for (String n : v.split(",")) {
                String name = n.strip().toLowerCase(Locale.ROOT);
                if (name.equals("*")) {
                    return null;
                }
                if (!name.isEmpty() && !names.contains(name)) {
                    names.add(name);
                }
            }
        }
        names.sort(null);
        return names;
    }

    /** The Cache-Control directives, lower-cased, {@code name} or {@code name=value}. */
    static List<String> directives(HttpHeaders h) {
        List<String> out = new ArrayList<>();
        for (String v : h.getAll(HttpHeaderNames.CACHE_CONTROL)) {
            for (String d : v.split(",")) {
                String s = d.strip().toLowerCase(Locale.ROOT);
                if (!s.isEmpty()) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    private static boolean has(List<String> cc, String name) {
        for (String d : cc) {
            if (d.equals(name) || d.startsWith(name + "=")) {
                return true;
            }
        }
        return false;
    }

    /** A directive's number ({@code max-age=60}); null when absent; 0 when not a number (treated as expired). */
    private static Long value(List<String> cc, String name) {
        for (String d : cc) {
            if (d.startsWith(name + "=")) {
                String v = d.substring(name.length() + 1).replace("\"", "").strip();
                try {
                    return Long.parseLong(v);
                } catch (NumberFormatException e) {
                    return 0L;
                }
            }
        }
        return null;
    }
}
