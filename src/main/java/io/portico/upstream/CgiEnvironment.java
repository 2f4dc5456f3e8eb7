package io.portico.upstream;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * The CGI variables of a forwarded request, as nginx's {@code uwsgi_params} and {@code fastcgi_params} have them,
 * for the encoders of both protocols: those the {@link CgiParams} written before the head carry, plus
 * {@code REQUEST_METHOD}, {@code REQUEST_URI}, {@code PATH_INFO} (the path decoded, as nginx's
 * {@code $document_uri}), {@code QUERY_STRING}, {@code CONTENT_TYPE} and {@code CONTENT_LENGTH} (empty when
 * absent, as nginx sends them) and an {@code HTTP_*} variable per header field (the name upper-cased, dashes as
 * underscores; repeated fields joined with ", ", Cookie with "; ", as nginx 1.23 does), each unless the
 * {@link CgiParams} set it. Hop-by-hop fields mean nothing to an app server and are not sent.
 */
final class CgiEnvironment {
    /** The variables derived from the head besides the {@code HTTP_} ones: a {@link CgiParams} may replace them. */
    static final Set<String> DERIVED = Set.of(
            "REQUEST_METHOD", "REQUEST_URI", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE", "CONTENT_LENGTH");

    private CgiEnvironment() {}

    /** Calls {@code out} with each variable, in order; {@code p} may be null. */
    static void forEach(HttpRequest head, CgiParams p, BiConsumer<String, String> out) {
        String uri = head.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        derived(out, p, "REQUEST_METHOD", head.method().name());
        derived(out, p, "REQUEST_URI", uri);
        derived(out, p, "PATH_INFO", percentDecoded(path));
        derived(out, p, "QUERY_STRING", q < 0 ? "" : uri.substring(q + 1));
        derived(out, p, "CONTENT_TYPE", orEmpty(head.headers().get(HttpHeaderNames.CONTENT_TYPE)));
        derived(out, p, "CONTENT_LENGTH", orEmpty(head.headers().get(HttpHeaderNames.CONTENT_LENGTH)));
        if (p != null) {
            for (int i = 0; i < p.size(); i++) {
                out.accept(p.name(i), p.value(i));
            }
        }
        // The HTTP_ variables in the order of their first field, a repeated name's values joined onto it. A request
        // has a handful of fields, so a scan of those already seen is cheaper than a map per request.
        int n = head.headers().size();
        String[] vars = new String[n];
        String[] values = new String[n];
        int count = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = head.headers().iteratorCharSequence();
                it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (notSent(name)) {
                continue;
            }
            String var = variableName(name);
            String value = h.getValue().toString();
            int seen = indexOf(vars, count, var);
            if (seen < 0) {
                vars[count] = var;
                values[count++] = value;
            } else {
                String separator = HttpHeaderNames.COOKIE.contentEqualsIgnoreCase(name) ? "; " : ", ";
                values[seen] = values[seen] + separator + value;
            }
        }
        for (int i = 0; i < count; i++) {
            derived(out, p, vars[i], values[i]);
        }
    }

    private static int indexOf(String[] vars, int count, String var) {
        for (int i = 0; i < count; i++) {
            if (vars[i].equals(var)) {
                return i;
            }
        }
        return -1;
    }

    /** {@code HTTP_} and the field name upper-cased with dashes as underscores, in one string. */
    static String variableName(CharSequence field) {
        byte[] b = new byte[5 + field.length()];
        b[0] = 'H';
        b[1] = 'T';
        b[2] = 'T';
        b[3] = 'P';
        b[4] = '_';
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            b[5 + i] = (byte) (c == '-' ? '_' : c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c);
        }
        return new String(b, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** Content-Type and -Length have their own variables; framing and hop-by-hop fields mean nothing here. */
    private static boolean notSent(CharSequence name) {
        return HttpHeaderNames.CONTENT_TYPE.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.KEEP_ALIVE.contentEqualsIgnoreCase(name);
    }

    private static void derived(BiConsumer<String, String> out, CgiParams p, String name, String value) {
        if (p == null || !p.has(name)) {
            out.accept(name, value);
        }
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    /**
     * The path with its percent-encodings decoded to the bytes they stand for (one char per byte, sent as that
     * byte): PATH_INFO is decoded, as nginx's {@code $document_uri} and CGI want. The normalized path has only
     * valid encodings ({@code config.RequestPath}); anything else is kept as written.
     */
    static String percentDecoded(String path) {
        int pct = path.indexOf('%');
        if (pct < 0) {
            return path;
        }
        StringBuilder b = new StringBuilder(path.length()).append(path, 0, pct);
        for (int i = pct; i < path.length(); i++) {
            char c = path.charAt(i);
            int hi;
            int lo;
            if (c == '%' && i + 2 < path.length() && (hi = Character.digit(path.charAt(i + 1), 16)) >= 0
                    && (lo = Character.digit(path.charAt(i + 2), 16)) >= 0) {
                b.append((char) (hi << 4 | lo));
                i += 2;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
