package io.portico.bench;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.net.ConnectException;

/**
 * Loads, before the run, every class the run may need while the client is out of file descriptors: class loading
 * opens jar files, so with EMFILE a lazily loaded exception or record class fails with NoClassDefFoundError and
 * the failure could not even be counted.
 */
final class FailurePathClasses {

    private static final String[] NETTY = {
        "io.netty.channel.AbstractChannel$AnnotatedConnectException",
        "io.netty.channel.AbstractChannel$AnnotatedNoRouteToHostException",
        "io.netty.channel.AbstractChannel$AnnotatedSocketException",
        "io.netty.channel.unix.Errors",
        "io.netty.channel.unix.Errors$NativeIoException",
        "io.netty.channel.unix.Errors$NativeConnectException",
        "io.netty.channel.ChannelException",
        "io.netty.channel.ConnectTimeoutException",
        "io.netty.channel.StacklessClosedChannelException",
        "io.netty.channel.AbstractChannel$CloseFuture",
        "io.netty.channel.FailedChannel",
        "io.netty.handler.codec.PrematureChannelClosureException",
        "java.nio.channels.ClosedChannelException",
        "java.net.NoRouteToHostException",
        "java.net.BindException",
    };

    private FailurePathClasses() {
    }

    static void load() {
        ClassLoader loader = FailurePathClasses.class.getClassLoader();
        for (String name : NETTY) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException | LinkageError absent) {
                // not on this transport or version: nothing to preload
            }
        }
        Class<?>[] ours = {IntervalSample.class, Tally.class, ErrorClass.class, ErrorClassifier.class,
            StallDetector.class, BenchResult.class, EnvironmentInfo.class, FdLimit.class, TextReport.class};
        for (Class<?> c : ours) {
            try {
                Class.forName(c.getName(), true, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
        // run the classification code paths once so their lambdas and string switches are linked too
        ErrorClassifier.connectFailure(new IOException("Too many open files", new ConnectException("x")));
        ErrorClassifier.ioFailure(new IOException("Connection reset by peer"));
        new IntervalSample(0, 1, 0, 0, 0, 0, 0, 0).rps();
        exerciseCodec();
        String.format("%d %.2f %s", 1, 1.0, "x");
    }

    /** One request and response through the client pipeline, so the success path's classes are loaded too. */
    private static void exerciseCodec() {
        EmbeddedChannel ch = new EmbeddedChannel(VirtualClient.RawWrites.INSTANCE, VirtualClient.newCodec());
        ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        ch.pipeline().context(VirtualClient.RawWrites.INSTANCE).writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'x'}));
        ch.writeInbound(Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nok\r\n0\r\n\r\n", StandardCharsets.US_ASCII));
        Object msg;
        while ((msg = ch.readInbound()) != null) {
            if (msg instanceof io.netty.handler.codec.http.HttpResponse r) {
                HttpUtil.isKeepAlive(r);
            }
            ReferenceCountUtil.release(msg);
        }
        ch.finishAndReleaseAll();
    }
}
