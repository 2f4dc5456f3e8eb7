package io.portico.upstream;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The HASH balancer's key, an nginx-style template such as {@code $request_uri} or {@code $http_x_user$arg_id}.
 * Variables: {@code $request_uri} (path and query as sent), {@code $uri} (the normalized path), {@code $args},
 * {@code $remote_addr}, {@code $host}, {@code $http_NAME} (a request header, dashes written as underscores),
 * {@code $arg_NAME}; any other text is literal.
 */
public final class HashKeyTemplate {
    private final List<String> parts; // literals as-is, variables with a leading '$'

    private HashKeyTemplate(List<String> parts) {
        this.parts = parts;
    }

    public static HashKeyTemplate parse(String template) {
        List<String> parts = new ArrayList<>();
        int i = 0;
        while (i < template.length()) {
            int dollar = template.indexOf('$', i);
            if (dollar < 0) {
                parts.add(template.substring(i));
                break;
            }
            if (dollar > i) {
                parts.add(template.substring(i, dollar));
            }
            int end = dollar + 1;
            while (end < template.length()
                    && (Character.isLetterOrDigit(template.charAt(end)) || template.charAt(end) == '_')) {
                end++;
            }
            if (end == dollar + 1) {
                throw new IllegalArgumentException("hashKey: " + template + " (expected: a variable name after $)");
            }
            parts.add(template.substring(dollar, end));
            i = end;
        }
        return new HashKeyTemplate(List.copyOf(parts));
    }

    /** @param path the request's normalized path, which {@code $uri} is (the one routing used, as nginx's) */
    public String evaluate(HttpRequest request, String path, InetSocketAddress client) {
        if (parts.size() == 1 && parts.get(0).equals("$request_uri")) {
            return request.uri();
        }
        StringBuilder sb = new StringBuilder();
        for (String part : parts) {
            sb.append(part.startsWith("$") ? variable(part.substring(1), request, path, client) : part);
        }
        return sb.toString();
    }

    private static String variable(String name, HttpRequest request, String path, InetSocketAddress client) {
        String uri = request.uri();
        int q = uri.indexOf('?');
        return switch (name) {
            case "request_uri" -> uri;
            case "uri" -> path;
            case "args" -> q < 0 ? "" : uri.substring(q + 1);
            case "remote_addr" -> client == null ? "" : client.getAddress().getHostAddress();
            case "host" -> String.valueOf(request.headers().get(HttpHeaderNames.HOST, ""));
            default -> {
                if (name.startsWith("http_")) {
                    yield request.headers().get(name.substring(5).replace('_', '-'), "");
                }
                if (name.startsWith("arg_")) {
                    List<String> v = new QueryStringDecoder(uri).parameters().get(name.substring(4));
                    yield v == null || v.isEmpty() ? "" : v.get(0);
                }
                yield "";
            }
        };
    }
}
