package io.portico.demo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The app: maps a complete request to a complete response, blocking when the endpoint does (a sleep, a file read).
 * Runs on a sync worker only. The endpoints mirror the Flask app of {@code /work/shared/peers/app.py}, plus
 * {@code /health} and {@code /big}.
 */
final class DemoEndpoints {

    static final long MAX_BLOCK_MS = 60_000;
    static final int MAX_BIG_KB = 64 * 1024;
    private static final String GET = "GET, HEAD";

    private final DemoFiles files;

    DemoEndpoints(DemoFiles files) {
        this.files = files;
    }

    /** Borrows {@code request} (the caller releases it) and returns a response the caller owns. */
    FullHttpResponse respond(FullHttpRequest request) throws InterruptedException {
        QueryStringDecoder uri = new QueryStringDecoder(request.uri());
        String path = uri.rawPath();
        HttpMethod method = request.method();
        if (path.equals("/echo")) {
            return method.equals(HttpMethod.POST) || method.equals(HttpMethod.PUT)
                    ? echo(request)
                    : DemoResponses.methodNotAllowed("POST, PUT");
        }
        boolean known = path.equals("/") || path.equals("/health") || path.equals("/block") || path.equals("/big")
                || path.startsWith("/hello/") || path.startsWith("/files/");
        if (!known) {
            return DemoResponses.notFound();
        }
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            return DemoResponses.methodNotAllowed(GET);
        }
        if (path.startsWith("/hello/")) {
            return hello(path.substring("/hello/".length()));
        }
        if (path.startsWith("/files/")) {
            return files.serve(path.substring("/files/".length()));
        }
        return switch (path) {
            case "/" -> DemoResponses.text(HttpResponseStatus.OK, "Hello, World!");
            case "/health" -> DemoResponses.text(HttpResponseStatus.OK, "ok");
            case "/block" -> block(uri);
            default -> big(uri);
        };
    }

    private static FullHttpResponse hello(String rawName) {
        if (rawName.indexOf('/') >= 0) {
            return DemoResponses.notFound(); // Flask's <name> is one segment
        }
        String name;
        try {
            name = QueryStringDecoder.decodeComponent(rawName.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException badEscape) {
            return DemoResponses.badRequest("malformed percent-encoding");
        }
        return DemoResponses.html(HelloPage.render(name));
    }

    /** Holds the worker like a slow query does; capped so a typo cannot park a worker for hours. */
    private static FullHttpResponse block(QueryStringDecoder uri) throws InterruptedException {
        Long ms = parameter(uri, "ms", 500);
        if (ms == null || ms < 0) {
            return DemoResponses.badRequest("ms: expected an integer >= 0");
        }
        long slept = Math.min(ms, MAX_BLOCK_MS);
        Thread.sleep(slept);
        return DemoResponses.text(HttpResponseStatus.OK, "i slept " + slept + " ms\n");
    }

    private static FullHttpResponse big(QueryStringDecoder uri) {
        Long kb = parameter(uri, "kb", 1);
        if (kb == null || kb < 0 || kb > MAX_BIG_KB) {
            return DemoResponses.badRequest("kb: expected an integer 0.." + MAX_BIG_KB);
        }
        byte[] body = new byte[Math.toIntExact(kb * 1024)];
        Arrays.fill(body, (byte) 'x');
        return DemoResponses.of(HttpResponseStatus.OK, "application/octet-stream", Unpooled.wrappedBuffer(body));
    }

    private static FullHttpResponse echo(FullHttpRequest request) {
        String type = request.headers().get(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        ByteBuf body = request.content().retainedDuplicate(); // the response shares the bytes, not the ownership
        return DemoResponses.of(HttpResponseStatus.OK, type, body);
    }

    /** The parameter as a number, {@code fallback} when absent, {@code null} when not an integer. */
    private static Long parameter(QueryStringDecoder uri, String name, long fallback) {
        List<String> values = uri.parameters().get(name);
        if (values == null || values.isEmpty()) {
            return fallback;
        }
        try {
            return Long.parseLong(values.get(0).trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
