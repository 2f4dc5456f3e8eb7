package io.portico.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import java.io.PrintWriter;
import java.io.Writer;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the client's own code hot before a measured run. A JVM client is slow for its first second or so: classes
 * load and the JIT compiles the read path, the response parser and the histograms. Measured against a server, that
 * reads as the server's fault: a 100 ms "stall" in every short run and a lower rate. So the client first loads an
 * in-process responder on loopback through the same loops, connection count and keep-alive mode, and throws those
 * figures away. The server under test sees none of it.
 */
public final class ClientWarmup {

    /** Requests per warm-up round: enough for the JIT's C2 tier to see the per-request path (~10k invocations). */
    static final long REQUESTS = 20_000;
    /** Without keep-alive every request is a connection (a port in TIME_WAIT): one round, and a smaller one. */
    static final long REQUESTS_NO_KEEPALIVE = 5_000;
    /** Rounds go on while the JIT is still compiling, up to this many. */
    static final int MAX_ROUNDS = 8;
    /** The JIT counts as settled when it compiled for less than this share of a round's time. */
    private static final double QUIET_SHARE = 0.1;
    private static final int MAX_CONNECTIONS = 64;

    private ClientWarmup() {
    }

    /**
     * Warms {@code loops} up for a run with {@code options}, in rounds until the JIT is quiet; returns the figures of
     * the rounds, merged.
     */
    public static BenchResult run(ClientLoops loops, BenchOptions options) throws InterruptedException {
        // the header lines of a typical static response, so the parser's paths for them are the ones warmed
        ByteBuf response = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(("HTTP/1.1 200 OK\r\n"
                + "Server: portico-warmup\r\nDate: Mon, 30 Nov 2026 04:39:15 GMT\r\nContent-Type: text/plain\r\n"
                + "Content-Length: 1024\r\nLast-Modified: Mon, 30 Nov 2026 04:18:08 GMT\r\n"
                + "Connection: keep-alive\r\nETag: \"6b0cf900-400\"\r\nAccept-Ranges: bytes\r\n\r\n"
                + "x".repeat(1024)).getBytes(StandardCharsets.US_ASCII)));
        Channel server = loops.serverBootstrap().childHandler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new Responder(response));
            }
        }).bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        try {
            int port = ((InetSocketAddress) server.localAddress()).getPort();
            RequestTarget target = new RequestTarget(URI.create("http://127.0.0.1:" + port + "/warmup"), "GET", null);
            BenchOptions warmup = new BenchOptions(List.of(target), Math.min(options.connections(), MAX_CONNECTIONS),
                    options.keepAlive() ? REQUESTS : REQUESTS_NO_KEEPALIVE, 0, null, options.keepAlive(),
                    options.headers(), Duration.ZERO, Duration.ofSeconds(5), Duration.ofSeconds(5), 0, List.of(),
                    options.threads());
            PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
            int rounds = options.keepAlive() && measurable ? MAX_ROUNDS : 1;
            List<BenchResult> results = new ArrayList<>();
            for (int i = 0; i < rounds; i++) {
                long compiledMs = measurable ? jit.getTotalCompilationTime() : 0;
                BenchResult round = new BenchRun(warmup, loops, null, nowhere).run();
                results.add(round);
                long roundCompileMs = measurable ? jit.getTotalCompilationTime() - compiledMs : 0;
                if (roundCompileMs < QUIET_SHARE * round.elapsedS() * 1000) {
                    break;
                }
            }
            return ResultMerge.merge(results);
        } finally {
            server.close().sync();
            response.unwrap().release();
        }
    }

    /** Answers every request head (up to its blank line) with the same canned response; never reads a body. */
    private static final class Responder extends ChannelInboundHandlerAdapter {

        private static final byte[] END_OF_HEAD = {'\r', '\n', '\r', '\n'};
        private final ByteBuf response;
        private int matched;

        Responder(ByteBuf response) {
            this.response = response;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                for (int i = in.readerIndex(); i < in.writerIndex(); i++) {
                    byte b = in.getByte(i);
                    matched = b == END_OF_HEAD[matched] ? matched + 1 : b == '\r' ? 1 : 0;
                    if (matched == END_OF_HEAD.length) {
                        matched = 0;
                        ctx.write(response.duplicate(), ctx.voidPromise());
                    }
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
