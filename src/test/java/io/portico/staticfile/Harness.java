package io.portico.staticfile;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.LocationConfig;
import io.portico.config.StaticConfig;
import io.portico.config.TargetConfig;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Drives a static responder over an EmbeddedChannel: file system work queues on {@link #executor} and runs when
 * {@link #drain} is called, so tests see both the cached (synchronous) and the missed (hop) paths.
 */
final class Harness implements AutoCloseable {
    static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

    final Deque<Runnable> tasks = new ArrayDeque<>();
    final Executor executor = tasks::add;
    final AtomicLong nanos = new AtomicLong();
    final EmbeddedChannel channel = new EmbeddedChannel();
    final StaticFiles files;

    Harness(long cacheMaxFileSize, StaticConfig.FollowSymlinks symlinks) {
        this(cacheMaxFileSize, symlinks, Duration.ofSeconds(1));
    }

    Harness(long cacheMaxFileSize, StaticConfig.FollowSymlinks symlinks, Duration revalidate) {
        StaticConfig config = new StaticConfig(
                64 << 20, cacheMaxFileSize, revalidate, symlinks, Map.of("thing", "text/x-thing"), 64 << 10);
        files = StaticFiles.create(config, executor, nanos::get, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    Harness() {
        this(256 * 1024, StaticConfig.FollowSymlinks.INSIDE_ROOT);
    }

    static TargetConfig.Static target(Path dir) {
        return new TargetConfig.Static(dir, false, List.of("index.html"), List.of(), false, Optional.empty(),
                Optional.empty(), false, false);
    }

    Responder responder(String prefix, TargetConfig.Static target, Function<String, Responder> named) {
        return files.responder(location(prefix, target), target, named);
    }

    static LocationConfig location(String prefix, TargetConfig.Static target) {
        return new LocationConfig(new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, prefix), target,
                List.of(), List.of(), "test");
    }

    Exchange open(Responder responder, HttpMethod method, String uri, boolean secure, String... headers) {
        HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, uri);
        for (int i = 0; i < headers.length; i += 2) {
            request.headers().add(headers[i], headers[i + 1]);
        }
        int query = uri.indexOf('?');
        String rawPath = query < 0 ? uri : uri.substring(0, query);
        Route route = new Route(location("/", target(Path.of("/"))), responder);
        return responder.open(new FakeClientExchange(channel, route).path(rawPath).secure(secure), request);
    }

    /** A whole request: head, empty body, then every queued task until nothing is left. */
    Response get(Responder responder, HttpMethod method, String uri, String... headers) {
        Exchange exchange = open(responder, method, uri, false, headers);
        exchange.onContent(LastHttpContent.EMPTY_LAST_CONTENT);
        drain();
        return read();
    }

    Response get(Responder responder, String uri, String... headers) {
        return get(responder, HttpMethod.GET, uri, headers);
    }

    void drain() {
        do {
            while (!tasks.isEmpty()) {
                tasks.poll().run();
            }
            channel.runPendingTasks();
        } while (!tasks.isEmpty());
    }

    /** What the channel received for one response, everything released; kinds name the message classes. */
    record Response(HttpResponse head, byte[] body, List<String> kinds) {
        int status() {
            return head.status().code();
        }

        HttpHeaders headers() {
            return head.headers();
        }

        String text() {
            return new String(body, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    Response read() {
        HttpResponse head = null;
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<String> kinds = new ArrayList<>();
        Object message;
        while ((message = channel.readOutbound()) != null) {
            kinds.add(message instanceof FullHttpResponse ? "full" : message instanceof HttpResponse ? "head"
                    : message instanceof LastHttpContent ? "last" : message instanceof FileRegion ? "region"
                    : message instanceof FileChunks ? "chunks" : message instanceof HttpContent ? "content"
                    : message.getClass().getSimpleName());
            try {
                if (message instanceof HttpResponse response) {
                    head = response;
                }
                if (message instanceof HttpContent content) {
                    ByteBuf buf = content.content();
                    buf.getBytes(buf.readerIndex(), body, buf.readableBytes());
                } else if (message instanceof FileRegion region) {
                    region.transferTo(Channels.newChannel(body), 0);
                } else if (message instanceof FileChunks chunks) {
                    while (!chunks.isEndOfInput()) {
                        HttpContent chunk = chunks.readChunk(ByteBufAllocator.DEFAULT);
                        chunk.content().readBytes(body, chunk.content().readableBytes());
                        chunk.release();
                    }
                    chunks.close();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                ReferenceCountUtil.release(message);
            }
        }
        return new Response(head, body.toByteArray(), kinds);
    }

    @Override
    public void close() {
        files.close();
        channel.finishAndReleaseAll();
    }
}
