package io.portico.metrics;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.ReadOnlyHttpHeaders;
import io.portico.exchange.ClientExchange;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/** What the metrics, status and health responders share: GET and HEAD only, a body made off the loop, no-store. */
final class AdminResponses {
    private AdminResponses() {}

    /** Answers 405 to anything but GET and HEAD; true when the request may go on. */
    static boolean getOrHead(ClientExchange client, HttpRequest request) {
        HttpMethod method = request.method();
        if (method.equals(HttpMethod.GET) || method.equals(HttpMethod.HEAD)) {
            return true;
        }
        client.sendError(HttpResponseStatus.METHOD_NOT_ALLOWED,
                new ReadOnlyHttpHeaders(true, HttpHeaderNames.ALLOW, "GET, HEAD"), false);
        return false;
    }

    /**
     * Renders the body on {@code executor} and writes it from the client's event loop. The response holds heap
     * bytes only; if the channel closed meanwhile the write fails and releases them.
     */
    static void renderOff(ClientExchange client, Executor executor, String contentType, Supplier<byte[]> body) {
        Channel ch = client.channel();
        try {
            executor.execute(() -> {
                byte[] bytes;
                try {
                    bytes = body.get();
                } catch (RuntimeException e) {
                    ch.eventLoop().execute(() -> client.sendError(HttpResponseStatus.INTERNAL_SERVER_ERROR, null,
                            false));
                    return;
                }
                ch.eventLoop().execute(() -> write(ch, HttpResponseStatus.OK, contentType, bytes));
            });
        } catch (RejectedExecutionException e) { // the server is stopping
            client.sendError(HttpResponseStatus.SERVICE_UNAVAILABLE, null, true);
        }
    }

    static void write(Channel ch, HttpResponseStatus status, String contentType, byte[] body) {
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        ch.writeAndFlush(response, ch.voidPromise());
    }
}
