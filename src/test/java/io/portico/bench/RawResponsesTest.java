package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The raw client against a server that writes exact bytes: chunked bodies, bodies delimited by the close, interim
 * responses, responses cut mid-line across writes, and garbage. One response per request (at its end: CRLF CRLF).
 */
class RawResponsesTest {

    private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    /** Answers each request with {@code parts}, flushed one by one; closes after them when {@code close}. */
    private String serve(boolean close, String... parts) throws InterruptedException {
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new Answer(close, parts));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        return "http://127.0.0.1:" + ((java.net.InetSocketAddress) server.localAddress()).getPort() + "/";
    }

    private static BenchResult run(String url, long requests) throws InterruptedException {
        return Runs.run(new BenchOptions(List.of(RequestTarget.of(url, "GET", null)), 1, requests, 0, null, true,
                List.of(), Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(2), 0, List.of(), 1));
    }

    @Test
    void chunkedResponsesCutAcrossWritesAreCountedOnOneConnection() throws Exception {
        String url = serve(false, "HTTP/1.1 200 OK\r\nTransfer-Enc", "oding: chunked\r\n\r\n5\r\nhel",
                "lo\r\n6;x=y\r\n world\r", "\n0\r\n\r\n");
        BenchResult r = run(url, 5);
        assertThat(r.tally().successes()).isEqualTo(5);
        assertThat(r.tally().bytes()).isEqualTo(5 * 11);
        assertThat(r.tally().connections()).isEqualTo(1);
    }

    @Test
    void aBodyDelimitedByTheCloseEndsWithItAndTheClientReconnects() throws Exception {
        BenchResult r = run(serve(true, "HTTP/1.0 200 OK\r\n\r\n", "until the end"), 3);
        assertThat(r.tally().successes()).isEqualTo(3);
        assertThat(r.tally().bytes()).isEqualTo(3 * 13);
        assertThat(r.tally().connections()).isEqualTo(3);
        assertThat(r.tally().errors()).isZero();
    }

    @Test
    void interimResponsesAreNotCountedAsAnswers() throws Exception {
        BenchResult r = run(serve(false, "HTTP/1.1 100 Continue\r\n\r\n",
                "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n"), 2);
        assertThat(r.tally().responses()).isEqualTo(2);
        assertThat(r.tally().errors(ErrorClass.HTTP_503)).isEqualTo(2);
    }

    @Test
    void aCloseInsideAFramedBodyIsAPrematureCloseAndGarbageIsAnError() throws Exception {
        BenchResult cut = run(serve(true, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort"), 2);
        assertThat(cut.tally().errors(ErrorClass.PREMATURE_CLOSE)).isEqualTo(2);
        assertThat(cut.tally().responses()).isZero();
        BenchResult garbage = run(serve(false, "SSH-2.0-OpenSSH_9.2\r\n"), 2);
        assertThat(garbage.tally().errors(ErrorClass.OTHER)).isEqualTo(2);
        assertThat(garbage.firstMessages().get(ErrorClass.OTHER)).contains("malformed response");
    }

    private static final class Answer extends ChannelInboundHandlerAdapter {
        private final boolean close;
        private final String[] parts;
        private final StringBuilder received = new StringBuilder();

        Answer(boolean close, String[] parts) {
            this.close = close;
            this.parts = parts;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            received.append(in.toString(StandardCharsets.ISO_8859_1));
            in.release();
            while (received.indexOf("\r\n\r\n") >= 0) {
                received.delete(0, received.indexOf("\r\n\r\n") + 4);
                for (int i = 0; i < parts.length; i++) {
                    var f = ctx.writeAndFlush(Unpooled.copiedBuffer(parts[i], StandardCharsets.ISO_8859_1));
                    if (close && i == parts.length - 1) {
                        f.addListener(ChannelFutureListener.CLOSE);
                    }
                }
            }
        }
    }
}
