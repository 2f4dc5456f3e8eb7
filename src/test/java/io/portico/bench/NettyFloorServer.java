package io.portico.bench;

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
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.io.IOException;
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
 * What Netty alone reaches on this machine, as a floor under Portico's static figures: the small files of a
 * directory held in memory and answered at {@code /static/NAME} with nginx's header set (Server, Date,
 * Content-Type, Content-Length, Last-Modified, ETag, Accept-Ranges) by one handler behind Netty's HTTP codec, on
 * the transport Portico uses by default. No routing, no file system, no limits, no timeouts, no access log: what
 * a measurement of it shows is Netty's and the JVM's part of a small response, so that a figure Portico misses can
 * be told apart from one Netty itself misses on the same box. Not a server: nothing here is checked or bounded.
 *
 * <pre>B_MAIN=io.portico.bench.NettyFloorServer bin/bench-ab 5 5 /static/1k.txt</pre>
 *
 * Arguments: PORT WORKERS DIR (the peers' directory: files are read from DIR/site).
 */
public final class NettyFloorServer {
    private static final int MAX_FILE = 1 << 20;
    private static final AsciiString SERVER = AsciiString.cached("netty-floor");
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter
            .ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);

    /** A file's bytes and the headers that do not change while it is held. */
    private record File(ByteBuf bytes, HttpHeaders headers) {}

    private NettyFloorServer() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int workers = Integer.parseInt(args[1]);
        Map<String, File> files = load(Path.of(args[2], "site"));
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(workers, io);
        try {
            Channel server = new ServerBootstrap().group(group).channel(channel)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new FileHandler(files));
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

    /** Answers each request from the map; flushes once per read, as Portico does. */
    private static final class FileHandler extends SimpleChannelInboundHandler<HttpObject> {
        private final Map<String, File> files;
        private long dateSecond;
        private String date;

        FileHandler(Map<String, File> files) {
            this.files = files;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (!(msg instanceof HttpRequest request)) {
                return; // a GET has no body; its empty last part needs nothing
            }
            File file = files.get(request.uri());
            FullHttpResponse response = file == null
                    ? new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND)
                    : new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                            file.bytes().duplicate());
            HttpHeaders headers = response.headers().add(HttpHeaderNames.SERVER, SERVER)
                    .add(HttpHeaderNames.DATE, date());
            if (file == null) {
                headers.add(HttpHeaderNames.CONTENT_LENGTH, 0);
            } else {
                headers.add(file.headers());
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            if (keepAlive) {
                ctx.write(response);
            } else {
                ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
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
}
