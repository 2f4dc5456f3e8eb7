package io.portico.upstream;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.portico.config.HealthCheckConfig;
import io.portico.config.UpstreamProtocol;
import io.portico.transport.Transport;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Probes one server: GET {@code path} (in its protocol: a uwsgi server gets the GET as a uwsgi packet) every {@code interval} on one event loop, on a fresh connection closed after
 * the response head; {@code fall} consecutive failures take the server down, {@code rise} consecutive successes bring
 * it back. Entirely asynchronous: a timer starts each probe and another bounds it by {@code timeout}.
 */
final class ActiveHealthCheck {
    private final UpstreamServer server;
    private final HealthCheckConfig config;
    private final EventLoop loop;
    private int successes;
    private int failures;
    private volatile boolean stopped;

    ActiveHealthCheck(UpstreamServer server, HealthCheckConfig config, EventLoop loop) {
        this.server = server;
        this.config = config;
        this.loop = loop;
    }

    void start() {
        loop.execute(this::probe);
    }

    void stop() {
        stopped = true;
    }

    private void probe() {
        if (stopped) {
            return;
        }
        boolean[] done = {false};
        Channel[] channel = {null};
        Consumer<String> fail = why -> {
            if (!done[0]) {
                done[0] = true;
                if (channel[0] != null) {
                    channel[0].close();
                }
                record(false, why);
            }
        };
        var timeout = loop.schedule(() -> fail.accept("no response head within " + config.timeout().toMillis() + "ms"),
                config.timeout().toNanos(), TimeUnit.NANOSECONDS);
        Transport transport = Transport.of(loop);
        Bootstrap b = new Bootstrap()
                .group(loop)
                .channelFactory(transport.upstreamChannel(server.socketAddress()))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, config.timeout().toMillis()))
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (server.protocol() == UpstreamProtocol.UWSGI) {
                            // The same GET as a uwsgi packet; uWSGI answers it in HTTP.
                            ch.pipeline().addLast(new HttpResponseDecoder(), new UwsgiEncoder(new ArrayDeque<>()));
                        } else if (server.protocol() == UpstreamProtocol.FASTCGI) {
                            FastCgiCodec.addTo(ch.pipeline(), 16 * 1024, 100, false, null);
                        } else {
                            ch.pipeline().addLast(new HttpClientCodec());
                        }
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<HttpObject>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
                                if (msg instanceof HttpResponse r && !done[0]) {
                                    done[0] = true;
                                    timeout.cancel(false);
                                    ctx.close();
                                    if (!r.decoderResult().isSuccess()) {
                                        record(false, "malformed response");
                                    } else {
                                        int code = r.status().code();
                                        record(config.expects(code), "GET " + config.path() + ": " + code);
                                    }
                                }
                            }

                            @Override
                            public void channelInactive(ChannelHandlerContext ctx) {
                                timeout.cancel(false);
                                fail.accept("closed before the response head");
                            }

                            @Override
                            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                ctx.close();
                            }
                        });
                    }
                });
        b.connect(server.socketAddress()).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                timeout.cancel(false);
                fail.accept(SocketErrors.connect(f.cause()));
                return;
            }
            channel[0] = f.channel();
            if (done[0]) {
                f.channel().close();
                return;
            }
            FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, config.path());
            req.headers().set(HttpHeaderNames.HOST, server.hostHeader());
            req.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            req.headers().set(HttpHeaderNames.USER_AGENT, "portico-health-check");
            if (server.protocol() != UpstreamProtocol.HTTP) {
                f.channel().write(healthCheckVariables());
            }
            f.channel().writeAndFlush(req);
        });
    }

    /**
     * What an app needs besides what the encoder derives from the GET (PEP 3333 requires SERVER_*); FastCGI's
     * SCRIPT_NAME and SCRIPT_FILENAME too.
     */
    private CgiParams healthCheckVariables() {
        String host = server.hostHeader();
        int colon = host.lastIndexOf(':');
        String path = config.path();
        int q = path.indexOf('?');
        return CgiParams.builder()
                // PHP-FPM answers its ping.path (and status.path) before it opens a script, from these two:
                // ping.path = /health is a check. (A check names no location, so no fastcgi-root.)
                .set("SCRIPT_NAME", q < 0 ? path : path.substring(0, q))
                .set("SCRIPT_FILENAME", q < 0 ? path : path.substring(0, q))
                .set("SERVER_PROTOCOL", "HTTP/1.1")
                .set("REQUEST_SCHEME", "http")
                .set("SERVER_NAME", colon < 0 ? host : host.substring(0, colon))
                .set("SERVER_PORT", colon < 0 ? "80" : host.substring(colon + 1))
                .build();
    }

    /** @param why what the probe saw, for the error log line of a change */
    private void record(boolean ok, String why) {
        server.flushHealthLog(); // a change the log's rate held back is written once it allows
        if (ok) {
            failures = 0;
            if (!server.checkedUp() && ++successes >= config.rise()) {
                server.checked(true, successes + " in a row, the last " + why);
            }
        } else {
            successes = 0;
            if (server.checkedUp() && ++failures >= config.fall()) {
                server.checked(false, failures + " in a row, the last " + why);
            }
        }
        if (!stopped) {
            try {
                loop.schedule(this::probe, config.interval().toNanos(), TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException shuttingDown) {
                stopped = true;
            }
        }
    }
}
