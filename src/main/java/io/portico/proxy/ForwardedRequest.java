package io.portico.proxy;

import static io.portico.config.ForwardedHeader.FORWARDED;
import static io.portico.config.ForwardedHeader.X_FORWARDED_FOR;
import static io.portico.config.ForwardedHeader.X_FORWARDED_HOST;
import static io.portico.config.ForwardedHeader.X_FORWARDED_PROTO;
import static io.portico.config.ForwardedHeader.X_REAL_IP;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.portico.config.ForwardedHeader;
import io.portico.config.LocationConfig;
import io.portico.config.TextTemplate;
import io.portico.route.ClientExchange;
import io.portico.config.RequestPath;
import io.portico.route.Variables;
import io.portico.upstream.UpstreamServer;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Builds the request head sent upstream from the client's: always HTTP/1.1 on a keep-alive connection, hop-by-hop
 * headers removed, header names with underscores dropped (they are ambiguous with dashes to CGI-style apps), the
 * forwarding headers set, and the location's {@code setRequestHeaders} applied last (an empty value removes).
 *
 * <p>Of the forwarding headers, the location's {@code forwardedHeaders} are set. The client's are believed only
 * when {@link ClientExchange#fromTrustedProxy()}: then X-Forwarded-For gets the peer appended and
 * X-Forwarded-Proto/-Host and Forwarded are kept and extended (and those not chosen pass on as sent); otherwise the
 * chosen ones are replaced by what Portico saw and the others removed.
 */
final class ForwardedRequest {
    static final String VIA = "1.1 portico";

    private ForwardedRequest() {}

    /** The head sent upstream; a buffered body's Content-Length is set once the body is complete. */
    static HttpRequest build(ClientExchange client, HttpRequest in, ProxySettings settings, boolean websocket) {
        HttpHeaders src = in.headers();
        boolean chunked = HttpUtil.isTransferEncodingChunked(in);
        // The client's headers were validated by the server's decoder; validating each copy again cost throughput.
        HttpHeaders out = DefaultHttpHeadersFactory.headersFactory().withValidation(false).newHeaders();
        // Hop-by-hop headers are left out while copying rather than removed after: a remove is a hash lookup.
        boolean connection = false;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = src.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (HopByHop.always(name)) {
                connection |= HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(name);
            } else if (!hasUnderscore(name)) {
                out.add(name, h.getValue());
            }
        }
        if (connection) {
            HopByHop.removeNamedBy(src, out);
        }
        out.remove(HttpHeaderNames.EXPECT);
        if (websocket) {
            out.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
            out.set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
        } else if (settings.pool().config().keepalive() <= 0) {
            out.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        if (chunked) {
            out.remove(HttpHeaderNames.CONTENT_LENGTH);
            out.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }

        // Host is kept; with hostFromUpstream (or when the client sent none) it is set per attempt, see hostFor.
        String host = src.get(HttpHeaderNames.HOST);
        forwarding(client, out, src, host, settings.target().forwardedHeaders());
        if (settings.target().via()) {
            String via = src.get(HttpHeaderNames.VIA);
            out.set(HttpHeaderNames.VIA, via == null ? VIA : via + ", " + VIA);
        }
        for (Map.Entry<String, TextTemplate> e : settings.target().setRequestHeaders().entrySet()) {
            if (e.getValue().text().isEmpty()) {
                out.remove(e.getKey());
            } else {
                out.set(e.getKey(), Variables.expand(e.getValue(), client, in));
            }
        }
        String target = uri(path(client, settings), settings) + query(in.uri());
        if (in instanceof FullHttpRequest whole && !whole.content().isReadable()) {
            // It arrived whole without a body (see server.ServerCodec), and goes upstream as one message. Its
            // content is the shared empty buffer, so the encoder's release leaves it whole for a retry.
            return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, in.method(), target, Unpooled.EMPTY_BUFFER, out,
                    LastHttpContent.EMPTY_LAST_CONTENT.trailingHeaders());
        }
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, in.method(), target, out);
    }

    private static void forwarding(ClientExchange client, HttpHeaders out, HttpHeaders src, String host,
            Set<ForwardedHeader> chosen) {
        boolean trusted = client.fromTrustedProxy();
        if (!trusted && chosen.size() < ForwardedHeader.ALL.size()) {
            // copied from the client above: what Portico neither sets nor vouches for must not reach the app
            for (ForwardedHeader h : ForwardedHeader.values()) {
                if (!chosen.contains(h)) {
                    out.remove(h.header);
                }
            }
        }
        // Formatting an address allocates: the peer's text is the connection's, the client's formatted only when it
        // differs.
        InetAddress peerAddress = client.peerAddress().getAddress();
        String peer = client.peerIp();
        if (chosen.contains(X_FORWARDED_FOR)) {
            String xff = src.get(X_FORWARDED_FOR.header);
            out.set(X_FORWARDED_FOR.header, trusted && xff != null && !xff.isBlank() ? xff + ", " + peer : peer);
        }
        if (chosen.contains(X_REAL_IP)) {
            InetAddress clientAddress = client.clientAddress().getAddress();
            out.set(X_REAL_IP.header, clientAddress == peerAddress ? peer : clientAddress.getHostAddress());
        }
        String proto = client.secure() ? "https" : "http";
        if (chosen.contains(X_FORWARDED_PROTO)) {
            String inProto = src.get(X_FORWARDED_PROTO.header);
            out.set(X_FORWARDED_PROTO.header, trusted && inProto != null ? inProto : proto);
        }
        if (chosen.contains(X_FORWARDED_HOST)) {
            String inHost = src.get(X_FORWARDED_HOST.header);
            if (trusted && inHost != null) {
                out.set(X_FORWARDED_HOST.header, inHost);
            } else if (host != null) {
                out.set(X_FORWARDED_HOST.header, host);
            } else {
                out.remove(X_FORWARDED_HOST.header);
            }
        }
        if (chosen.contains(FORWARDED)) {
            StringBuilder element = new StringBuilder("for=").append(node(peerAddress, peer));
            if (host != null) {
                element.append(";host=").append(quoted(host));
            }
            element.append(";proto=").append(proto);
            out.set(FORWARDED.header, trusted ? earlierHops(src) + element : element.toString());
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
        return '"' + value.replace("\"", "").replace("\\", "") + '"';
    }

    private static boolean hasUnderscore(CharSequence name) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) == '_') {
                return true;
            }
        }
        return false;
    }

    /** RFC 7239 node: IPv6 addresses are bracketed and quoted. */
    private static String node(InetAddress address, String ip) {
        return address instanceof Inet6Address ? "\"[" + ip + "]\"" : ip;
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

    /** Sets Host to the chosen server's host:port when configured so, or when the client sent none (HTTP/1.0). */
    static void hostFor(HttpRequest request, UpstreamServer server, ProxySettings settings) {
        String host = request.headers().get(HttpHeaderNames.HOST);
        if (settings.target().hostFromUpstream() || host == null || host.isEmpty()) {
            request.headers().set(HttpHeaderNames.HOST, server.hostHeader());
        }
    }
}
