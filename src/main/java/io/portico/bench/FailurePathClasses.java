package io.portico.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
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
        exerciseParser();
        String.format("%d %.2f %s", 1, 1.0, "x");
    }

    /** Two responses through the response parser, so the success path's classes are loaded too. */
    private static void exerciseParser() {
        ByteBuf in = Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nok\r\n0\r\n\r\n",
                StandardCharsets.US_ASCII);
        try {
            ResponseParser parser = new ResponseParser();
            for (int i = 0; i < 2; i++) {
                parser.reset(false);
                parser.parse(in);
                parser.keepAlive();
            }
            new MalformedResponseException("x").getMessage();
        } catch (MalformedResponseException e) {
            throw new IllegalStateException(e);
        } finally {
            in.release();
        }
    }
}
