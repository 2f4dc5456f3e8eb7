package io.portico.proxy;

import static io.portico.config.ForwardedHeader.FORWARDED;
import static io.portico.config.ForwardedHeader.X_FORWARDED_FOR;
import static io.portico.config.ForwardedHeader.X_FORWARDED_HOST;
import static io.portico.config.ForwardedHeader.X_FORWARDED_PROTO;
import static io.portico.config.ForwardedHeader.X_REAL_IP;

import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.AsciiString;
import io.portico.config.ForwardedHeader;
import io.portico.config.LocationConfig;
import io.portico.config.RequestPath;
import io.portico.config.TextTemplate;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Variables;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Map;
import java.util.Set;

/**
 * Builds the request head sent upstream from the client's, as a {@link ForwardedHead} (written from the client's
 * fields, not a copy of them): always HTTP/1.1 on a keep-alive connection, hop-by-hop headers removed, header
 * names with underscores dropped (they are ambiguous with dashes to CGI-style apps), the forwarding headers set,
 * and the location's {@code setRequestHeaders} applied last (an empty value removes).
 *
 * <p>Of the forwarding headers, the location's {@code forwardedHeaders} are set. The client's are believed only
 * when {@link ClientExchange#fromTrustedProxy()}: then X-Forwarded-For gets the peer appended and
 * X-Forwarded-Proto/-Host and Forwarded are kept and extended (and those not chosen pass on as sent); otherwise the
 * chosen ones are replaced by what Portico saw and the others removed.
 */
final class ForwardedRequest {
    static final String VIA = "1.1 portico";
    private static final AsciiString[] NO_NAMES = {};

    private ForwardedRequest() {}

    /**
     * The head sent upstream; a buffered body's Content-Length is set once the body is complete.
     *
     * @param bodyBuffered the body is read whole first: Content-Length is then Portico's
     */
    static ForwardedHead build(ClientExchange client, HttpRequest in, ProxySettings settings, boolean websocket,
            boolean bodyBuffered) {
        HttpHeaders src = in.headers();
        boolean chunked = HttpUtil.isTransferEncodingChunked(in);
        boolean trusted = client.fromTrustedProxy();
        Map<String, TextTemplate> configured = settings.target().setRequestHeaders();
        // Host is kept; with hostFromUpstream (or when the client sent none) it is set per attempt, see
        // ForwardedHead.message. A configured Host counts as the client's.
        String host = src.get(HttpHeaderNames.HOST);
        String effectiveHost = host;
        if (!configured.isEmpty()) {
            for (Map.Entry<String, TextTemplate> e : configured.entrySet()) {
                if (HttpHeaderNames.HOST.contentEqualsIgnoreCase(e.getKey())) {
                    effectiveHost = e.getValue().text().isEmpty() ? null : Variables.expand(e.getValue(), client, in);
                }
            }
        }
        AsciiString[] connectionNamed = src.contains(HttpHeaderNames.CONNECTION)
                ? ForwardedHead.connectionNamed(src) : NO_NAMES;
        if (effectiveHost == host && OwnedFields.contains(connectionNamed, HttpHeaderNames.HOST)) {
            effectiveHost = null; // Host named by Connection is dropped, so the server's goes instead (as before)
        }
        boolean replaceHost = settings.target().hostFromUpstream() || effectiveHost == null || effectiveHost.isEmpty();
        boolean whole = in instanceof FullHttpRequest full && !full.content().isReadable();
        String path = uri(path(client, settings), settings);
        String query = query(in.uri());
        String target = query.isEmpty() ? path : path + query;
        ForwardedHead out = new ForwardedHead(in.method(), target, src, settings.owned().owned(trusted),
                connectionNamed, chunked || bodyBuffered, chunked, whole, replaceHost);
        if (websocket) {
            out.set(HttpHeaderNames.CONNECTION).part(HttpHeaderValues.UPGRADE).end();
            out.set(HttpHeaderNames.UPGRADE).part(HttpHeaderValues.WEBSOCKET).end();
        } else if (settings.pool().config().keepalive() <= 0) {
            out.set(HttpHeaderNames.CONNECTION).part(HttpHeaderValues.CLOSE).end();
        }
        if (chunked && !bodyBuffered) {
            out.set(HttpHeaderNames.TRANSFER_ENCODING).part(HttpHeaderValues.CHUNKED).end();
        }
        forwarding(client, out, src, host, settings.target().forwardedHeaders(), trusted);
        if (settings.target().via()) {
            String via = src.get(HttpHeaderNames.VIA);
            out.set(HttpHeaderNames.VIA);
            if (via != null) {
                out.part(via).part(", ");
            }
            out.part(VIA).end();
        }
        if (!configured.isEmpty()) {
            for (Map.Entry<String, TextTemplate> e : configured.entrySet()) {
                if (HttpHeaderNames.HOST.contentEqualsIgnoreCase(e.getKey()) && replaceHost) {
                    out.remove(e.getKey()); // the server's host:port goes instead (host-from-upstream)
                } else if (e.getValue().text().isEmpty()) {
                    out.remove(e.getKey());
                } else {
                    out.set(e.getKey()).part(Variables.expand(e.getValue(), client, in)).end();
                }
            }
        }
        return out;
    }

    private static void forwarding(ClientExchange client, ForwardedHead out, HttpHeaders src, String host,
            Set<ForwardedHeader> chosen, boolean trusted) {
        // What Portico neither sets nor vouches for never reaches the app: OwnedFields leaves the client's out.
        // Formatting an address allocates: the peer's text is the connection's, the client's formatted only when it
        // differs.
        InetAddress peerAddress = client.peerAddress().getAddress();
        String peer = client.peerIp();
        if (chosen.contains(X_FORWARDED_FOR)) {
            String xff = src.get(X_FORWARDED_FOR.header);
            out.set(X_FORWARDED_FOR.header);
            if (trusted && xff != null && !xff.isBlank()) {
                out.part(xff).part(", ");
            }
            out.part(peer).end();
        }
        if (chosen.contains(X_REAL_IP)) {
            InetAddress clientAddress = client.clientAddress().getAddress();
            out.set(X_REAL_IP.header).part(clientAddress == peerAddress ? peer : clientAddress.getHostAddress()).end();
        }
        String proto = client.secure() ? "https" : "http";
        if (chosen.contains(X_FORWARDED_PROTO)) {
            String inProto = src.get(X_FORWARDED_PROTO.header);
            out.set(X_FORWARDED_PROTO.header).part(trusted && inProto != null ? inProto : proto).end();
        }
        if (chosen.contains(X_FORWARDED_HOST)) {
            String inHost = src.get(X_FORWARDED_HOST.header);
            if (trusted && inHost != null) {
                out.set(X_FORWARDED_HOST.header).part(inHost).end();
            } else if (host != null) {
                out.set(X_FORWARDED_HOST.header).part(host).end();
            }
        }
        if (chosen.contains(FORWARDED)) {
            out.set(FORWARDED.header);
            if (trusted) {
                out.part(earlierHops(src));
            }
            out.part("for=");
            if (peerAddress instanceof Inet6Address) {
                out.part("\"[").part(peer).part("]\"");
            } else {
                out.part(peer);
            }
            if (host != null) {
                out.part(";host=\"").part(unquoted(host)).part("\"");
            }
            out.part(";proto=").part(proto).end();
        }
    }

    /**
     * What a trusted proxy said about the hops before it, as the start of Forwarded (with a trailing ", "), or "".
     * Its own Forwarded is kept as sent; when it sent only X-Forwarded-*, those are converted, so that Forwarded's
     * first element names the client and its scheme as X-Forwarded-For and -Proto do, not the balancer (an app that
     * reads Forwarded, like Spring's ForwardedHeaderFilter, takes the first element). Each later element is a hop;
     * Portico's own, appended by the caller, describes the request it received (RFC 7239 section 4).
     */
    private static String earlierHops(HttpHeaders src) {
        String inForwarded = src.get(FORWARDED.header);
        if (inForwarded != null && !inForwarded.isBlank()) {
            return inForwarded + ", ";
        }
        String xff = src.get(X_FORWARDED_FOR.header);
        if (xff == null || xff.isBlank()) {
            return "";
        }
        String inProto = src.get(X_FORWARDED_PROTO.header);
        String inHost = src.get(X_FORWARDED_HOST.header);
        StringBuilder out = new StringBuilder();
        boolean first = true;
        for (String hop : xff.split(",")) {
            hop = hop.strip();
            if (hop.isEmpty()) {
                continue;
            }
            out.append("for=").append(forwardedNode(hop));
            if (first && inHost != null && !inHost.isBlank()) {
                out.append(";host=").append(quoted(inHost.strip()));
            }
            if (first && inProto != null && (inProto.strip().equalsIgnoreCase("http")
                    || inProto.strip().equalsIgnoreCase("https"))) {
                out.append(";proto=").append(inProto.strip().toLowerCase(java.util.Locale.ROOT));
            }
            out.append(", ");
            first = false;
        }
        return out.toString();
    }

    /** An X-Forwarded-For entry as an RFC 7239 node: IPv4 and "unknown" bare, IPv6 bracketed, the rest quoted. */
    private static String forwardedNode(String hop) {
        if (hop.matches("[0-9.]+") || hop.equalsIgnoreCase("unknown") || hop.matches("_[A-Za-z0-9._-]+")) {
            return hop;
        }
        if (hop.indexOf(':') != hop.lastIndexOf(':') && hop.matches("[0-9A-Fa-f:.]+")) { // IPv6: two colons or more
            return "\"[" + hop + "]\"";
        }
        return quoted(hop);
    }

    /** A quoted-string; quotes and backslashes, which only a forger would send, are dropped. */
    private static String quoted(String value) {
        return '"' + unquoted(value) + '"';
    }

    /** The inside of a quoted-string: {@code value} without quotes and backslashes (itself when it has none). */
    private static String unquoted(String value) {
        return value.replace("\"", "").replace("\\", "");
    }

    private static boolean hasUnderscore(CharSequence name) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) == '_') {
                return true;
            }
        }
        return false;
    }

    /**
     * The path sent upstream: the normalized one every decision was made on ({@link RequestPath}), with its empty
     * segments kept when the location says {@code merge-slashes = false}. Never the client's spelling.
     */
    static String path(ClientExchange client, ProxySettings settings) {
        return settings.target().mergeSlashes() ? client.path() : RequestPath.normalize(client.rawPath(), false);
    }

    /** The query of a request target, with its '?', as the client sent it; "" when there is none. */
    static String query(String uri) {
        int q = uri.indexOf('?');
        return q < 0 ? "" : uri.substring(q);
    }

    /** nginx's proxy_pass with a URI part: the matched location prefix of {@code uri} is replaced by the URI part. */
    static String uri(String uri, ProxySettings settings) {
        if (settings.target().uriPrefix().isEmpty()) {
            return uri;
        }
        String prefix = settings.target().uriPrefix().get();
        LocationConfig.Match match = settings.location().match();
        if (match.kind() == LocationConfig.Match.Kind.REGEX || !uri.startsWith(match.value())) {
            return uri;
        }
        return prefix + uri.substring(match.value().length());
    }
}
