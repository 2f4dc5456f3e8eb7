package io.portico.demo;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Date;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Hands each complete request of a connection to the sync workers and writes back the response a worker built.
 * One request per connection is in service at a time, in order: reading pauses meanwhile, and requests that were
 * pipelined into the same read wait here. Without keep-alive every response ends the connection, as gunicorn's
 * sync worker does. Event-loop state only; the worker side is {@link Service}.
 */
final class SyncWorkerHandler extends ChannelInboundHandlerAdapter {

    /** gunicorn's default worker timeout: past it a worker stuck on a client that does not read is freed. */
    static final long WRITE_TIMEOUT_MS = 30_000;

    private final SyncWorkers workers;
    private final DemoEndpoints endpoints;
    private final boolean keepAlive;
    private final ArrayDeque<FullHttpRequest> pipelined = new ArrayDeque<>();
    private boolean inService;

    SyncWorkerHandler(SyncWorkers workers, DemoEndpoints endpoints, boolean keepAlive) {
        this.workers = workers;
        this.endpoints = endpoints;
        this.keepAlive = keepAlive;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest request)) {
            ReferenceCountUtil.release(msg); // the aggregator only lets whole requests through; nothing else is ours
            return;
        }
        if (inService) {
            pipelined.add(request);
        } else {
            dispatch(ctx, request);
        }
    }

    private void dispatch(ChannelHandlerContext ctx, FullHttpRequest request) {
        inService = true;
        ctx.channel().config().setAutoRead(false);
        try {
            workers.execute(new Service(ctx, request));
        } catch (RejectedExecutionException closing) {
            request.release();
            ctx.close();
        }
    }

    /** On the event loop once the response is written, or failed to be. */
    private void served(ChannelHandlerContext ctx, boolean close, boolean written) {
        if (close || !written) {
            ctx.close(); // pipelined requests are released by channelInactive
            return;
        }
        inService = false;
        FullHttpRequest next = pipelined.poll();
        if (next != null) {
            dispatch(ctx, next);
        } else {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        FullHttpRequest request;
        while ((request = pipelined.poll()) != null) {
            request.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close(); // a reset or a parse failure the codec could not answer: the client is gone or hopeless
    }

    /** One request on a sync worker: build the response (blocking allowed), hand the write to the loop, wait. */
    private final class Service implements SyncWorkers.Job {
        private final ChannelHandlerContext ctx;
        private final FullHttpRequest request;

        Service(ChannelHandlerContext ctx, FullHttpRequest request) {
            this.ctx = ctx;
            this.request = request;
        }

        @Override
        public void run() {
            boolean malformed = request.decoderResult().isFailure();
            boolean close = !keepAlive || malformed || !HttpUtil.isKeepAlive(request);
            boolean head = request.method().equals(HttpMethod.HEAD);
            FullHttpResponse response;
            try {
                response = malformed ? DemoResponses.badRequest("malformed request") : endpoints.respond(request);
            } catch (InterruptedException shuttingDown) {
                Thread.currentThread().interrupt();
                response = DemoResponses.text(HttpResponseStatus.SERVICE_UNAVAILABLE, "503 shutting down\n");
                close = true;
            } catch (RuntimeException bug) {
                response = DemoResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "500 " + bug + "\n");
            } finally {
                request.release();
            }
            write(finish(response, head, close), close);
        }

        private FullHttpResponse finish(FullHttpResponse response, boolean head, boolean close) {
            if (!request.decoderResult().isFailure()) {
                response.setProtocolVersion(request.protocolVersion());
            }
            response.headers()
                    .set(HttpHeaderNames.SERVER, "portico-demo-app")
                    .set(HttpHeaderNames.DATE, DateFormatter.format(new Date()));
            if (close) {
                // Explicit even for HTTP/1.0, where it is the default: gunicorn says it, and clients are told.
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            } else {
                HttpUtil.setKeepAlive(response, true);
            }
            if (!head) {
                return response;
            }
            FullHttpResponse empty = response.replace(Unpooled.EMPTY_BUFFER); // keeps the GET's Content-Length
            response.release();
            return empty;
        }

        private void write(FullHttpResponse response, boolean close) {
            ChannelPromise written = ctx.newPromise();
            try {
                ctx.channel().eventLoop().execute(() -> {
                    ctx.writeAndFlush(response, written);
                    written.addListener(f -> served(ctx, close, f.isSuccess()));
                });
            } catch (RejectedExecutionException loopGone) {
                response.release();
                return;
            }
            // In service until the bytes are handed to the socket, as a sync worker is until send() returns.
            try {
                if (!written.await(WRITE_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                    ctx.channel().close();
                }
            } catch (InterruptedException shuttingDown) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void discard() {
            request.release();
        }
    }
}
