package io.portico.bench;

import java.net.InetSocketAddress;
import io.netty.util.ReferenceCountUtil;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelFuture;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What Netty alone reaches on this machine, as a floor under Portico's figures: the small files of a directory
 * held in memory and answered at {@code /static/NAME} with nginx's header set (Server, Date, Content-Type,
 * Content-Length, Last-Modified, ETag, Accept-Ranges), nginx's 503 page at {@code /limited/} (every request, as in
 * a flood far over the limit, with no decision taken), {@code /fast/} relayed to the fast app and every other path
 * to the app server (a new connection per request where it closes them, as gunicorn's sync workers do), by one handler
 * behind Netty's HTTP codec, on the transport Portico uses by default. No routing, no file system, no limits, no
 * timeouts, no pool, no access log: what a measurement of it shows is Netty's and the JVM's part of a small
 * response, so that a figure Portico misses can be told apart from one Netty itself misses on the same box. Not a
 * server: nothing here is checked or bounded.
 *
 * <pre>B_MAIN=io.portico.bench.NettyFloorServer bin/bench-ab 5 5 /static/1k.txt /fast/ /limited/1k.txt /</pre>
 *
 * Arguments: PORT WORKERS DIR [FAST_PORT [APP_PORT]]: the peers' directory (files are read from DIR/site), the
 * fast app's port (18001 by default) and the app server's (18000).
 */
public final class NettyFloorServer {
    private static final int MAX_FILE = 1 << 20;
    private static final AsciiString SERVER = AsciiString.cached("netty-floor");
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("x-forwarded-for");

    /** A file's bytes and the headers that do not change while it is held. */
    private record File(ByteBuf bytes, HttpHeaders headers) {}

    /** What nginx answers a request its limit_req rejects, page and headers: every /limited/ request gets it. */
    private static final File REJECTION = rejection();

    private NettyFloorServer() {}

    private static File rejection() {
        byte[] page = ("<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n"
                + "<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n"
                + "<hr><center>netty-floor</center>\r\n</body>\r\n</html>\r\n").getBytes(StandardCharsets.US_ASCII);
        HttpHeaders headers = HttpHeaders.EMPTY_HEADERS.copy().add(HttpHeaderNames.CONTENT_TYPE, "text/html")
                .add(HttpHeaderNames.CONTENT_LENGTH, page.length);
        return new File(Unpooled.unreleasableBuffer(Unpooled.directBuffer(page.length).writeBytes(page)), headers);
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int workers = Integer.parseInt(args[1]);
        Map<String, File> files = load(Path.of(args[2], "site"));
        int fastPort = args.length > 3 ? Integer.parseInt(args[3]) : 18001;
        int appPort = args.length > 4 ? Integer.parseInt(args[4]) : 18000;
        boolean epoll = Epoll.isAvailable();
        Upstreams upstreams =
                new Upstreams(epoll ? EpollSocketChannel.class : NioSocketChannel.class, fastPort, appPort);
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(workers, io);
        try {
            Channel server = new ServerBootstrap().group(group).channel(channel)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new FloorHandler(files, upstreams));
                        }
                    })
                    .bind("127.0.0.1", port).sync().channel();
            System.out.println("netty-floor on 127.0.0.1:" + port + ", " + workers + " loop(s), "
                    + (epoll ? "epoll" : "nio") + ", " + files.size() + " files");
            server.closeFuture().sync();
        } finally {
            group.shutdownGracefully();
        }
    }

    private static Map<String, File> load(Path site) throws IOException {
        Map<String, File> files = new HashMap<>();
        try (Stream<Path> list = Files.list(site)) {
            for (Path path : (Iterable<Path>) list::iterator) {
                if (!Files.isRegularFile(path) || Files.size(path) > MAX_FILE) {
                    continue;
                }
                byte[] bytes = Files.readAllBytes(path);
                long mtime = Files.getLastModifiedTime(path).toMillis();
                String name = path.getFileName().toString();
                HttpHeaders headers = HttpHeaders.EMPTY_HEADERS.copy()
                        .add(HttpHeaderNames.CONTENT_TYPE, name.endsWith(".html") ? "text/html"
                                : name.endsWith(".txt") ? "text/plain" : "application/octet-stream")
                        .add(HttpHeaderNames.CONTENT_LENGTH, bytes.length)
                        .add(HttpHeaderNames.LAST_MODIFIED, HTTP_DATE.format(Instant.ofEpochMilli(mtime)))
                        .add(HttpHeaderNames.ETAG, "\"" + Long.toHexString(mtime / 1000) + "-"
                                + Integer.toHexString(bytes.length) + "\"")
                        .add(HttpHeaderNames.ACCEPT_RANGES, "bytes");
                ByteBuf buf = Unpooled.unreleasableBuffer(Unpooled.directBuffer(bytes.length).writeBytes(bytes));
                files.put("/static/" + name, new File(buf, headers));
            }
        }
        return files;
    }

    /** Where relayed requests go, and the channel class that reaches them from the server's loops. */
    private record Upstreams(Class<? extends Channel> channel, int fastPort, int appPort) {}

    /**
     * Answers /static/ and /limited/ requests itself and relays the others, /fast/ to the fast app and the rest to
     * the app server, over one upstream connection per client connection (kept while the upstream keeps it open),
     * re-encoded by Netty's codecs with the hop-by-hop headers out and X-Forwarded-For in. Responses to the client
     * are flushed once per read, as Portico does. Requests on a connection come one at a time (wrk does not
     * pipeline).
     */
    private static final class FloorHandler extends ChannelInboundHandlerAdapter {
        private final Map<String, File> files;
        private final Upstreams upstreams;
        private ChannelFuture upstream;
        private int upstreamPort;
        private boolean relaying;
        private String forwardedFor;
        private long dateSecond;
        private String date;

        FloorHandler(Map<String, File> files, Upstreams upstreams) {
            this.files = files;
            this.upstreams = upstreams;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                String uri = request.uri();
                relaying = !uri.startsWith("/static/") && !uri.startsWith("/limited/");
                if (relaying) {
                    request.headers().remove(HttpHeaderNames.CONNECTION).remove(HttpHeaderNames.KEEP_ALIVE)
                            .set(X_FORWARDED_FOR, forwardedFor(ctx));
                    open(ctx, uri.startsWith("/fast/") ? upstreams.fastPort() : upstreams.appPort());
                    relay(request);
                } else {
                    answer(ctx, request);
                }
            } else if (relaying) {
                relay(msg);
            } else {
                ReferenceCountUtil.release(msg); // a GET has no body; its empty last part needs nothing
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (upstream != null) {
                upstream.channel().close();
            }
            ctx.fireChannelInactive();
        }

        private void answer(ChannelHandlerContext ctx, HttpRequest request) {
            File file = request.uri().startsWith("/limited/") ? REJECTION : files.get(request.uri());
            FullHttpResponse response = file == null
                    ? new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND)
                    : new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                            file == REJECTION ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.OK,
                            file.bytes().duplicate());
            HttpHeaders headers = response.headers().add(HttpHeaderNames.SERVER, SERVER)
                    .add(HttpHeaderNames.DATE, date());
            if (file == null) {
                headers.add(HttpHeaderNames.CONTENT_LENGTH, 0);
            } else {
                headers.add(file.headers());
            }
            if (HttpUtil.isKeepAlive(request)) {
                ctx.write(response);
            } else {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        /** A connection to {@code port} for the request, the one this client connection has if it is still open. */
        private void open(ChannelHandlerContext ctx, int port) {
            if (upstream != null && upstreamPort == port && (!upstream.isDone() || upstream.channel().isActive())) {
                return;
            }
            if (upstream != null) {
                upstream.channel().close();
            }
            upstreamPort = port;
            upstream = new Bootstrap().group(ctx.channel().eventLoop()).channel(upstreams.channel())
                    .handler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpClientCodec(), new ResponseRelay(ctx.channel()));
                        }
                    })
                    .connect("127.0.0.1", port);
        }

        /** Writes and flushes a part of the request upstream, once the connection is open. */
        private void relay(Object part) {
            ChannelFuture connection = upstream;
            if (connection.isDone()) {
                connection.channel().writeAndFlush(part);
            } else {
                connection.addListener(f -> connection.channel().writeAndFlush(part));
            }
        }

        private String forwardedFor(ChannelHandlerContext ctx) {
            if (forwardedFor == null) {
                forwardedFor = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress().getHostAddress();
            }
            return forwardedFor;
        }

        /** The Date header, formatted once a second per connection (Portico's and nginx's are per loop). */
        private String date() {
            long second = System.currentTimeMillis() / 1000;
            if (second != dateSecond) {
                dateSecond = second;
                date = HTTP_DATE.format(Instant.ofEpochSecond(second));
            }
            return date;
        }
    }

    /** The upstream's response to the client, part by part, hop-by-hop headers out; flushed once per read. */
    private static final class ResponseRelay extends ChannelInboundHandlerAdapter {
        private final Channel client;
        private boolean closing;

        ResponseRelay(Channel client) {
            this.client = client;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpResponse response) {
                closing = !HttpUtil.isKeepAlive(response);
                response.headers().remove(HttpHeaderNames.CONNECTION).remove(HttpHeaderNames.KEEP_ALIVE);
            }
            client.write(msg);
            if (msg instanceof LastHttpContent && closing) {
                ctx.channel().close(); // as the app server does: the client's next request opens another
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            client.flush();
        }
    }
}
