package io.portico.staticfile;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.util.AsciiString;
import io.portico.compress.ResponseCompression;
import io.portico.config.CompressionConfig;
import io.portico.config.CompressionConfig.Coding;
import io.portico.exchange.ResponseHeaders;
import io.portico.staticfile.Preconditions.Decision;
import io.portico.transport.Transport;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * Answers GET/HEAD for a file whose metadata is known: conditionals, range, headers, then the body from the memory
 * cache (small files), by sendfile (plain connections) or in chunks (TLS). Every response ends with a
 * LastHttpContent (a FullHttpResponse or an explicit EMPTY_LAST_CONTENT).
 */
final class FileSender {
    /** Header values here are built from validated metadata, so per-request validation would only cost time. */
    static final HttpHeadersFactory HEADERS = ResponseHeaders.HEADERS;

    private static final HttpHeadersFactory TRAILERS = ResponseHeaders.NO_TRAILERS;
    private static final int CHUNK_SIZE = 16 * 1024;
    private static final AsciiString VARY_ACCEPT_ENCODING = AsciiString.cached("Accept-Encoding");

    private final FileCache cache;
    private final CachingHeaders caching;

    FileSender(FileCache cache, CachingHeaders caching) {
        this.cache = cache;
        this.caching = caching;
    }

    void send(StaticExchange exchange, Representation representation) {
        FileMeta file = representation.file();
        HttpHeaders request = exchange.request().headers();
        boolean get = exchange.request().method().equals(HttpMethod.GET);
        Decision decision = Preconditions.evaluate(request, get, file.etag(), file.mtimeSeconds(), file.size());
        if (decision instanceof Decision.PreconditionFailed) {
            exchange.error(HttpResponseStatus.PRECONDITION_FAILED);
        } else if (decision instanceof Decision.RangeNotSatisfiable) {
            exchange.error(HttpResponseStatus.REQUESTED_RANGE_NOT_SATISFIABLE,
                    new DefaultHttpHeaders().set(HttpHeaderNames.CONTENT_RANGE, "bytes */" + file.size()));
        } else if (decision instanceof Decision.NotModified) {
            HttpResponse response = full(HttpResponseStatus.NOT_MODIFIED, Unpooled.EMPTY_BUFFER);
            validators(response.headers(), representation);
            exchange.answering();
            exchange.client().channel().writeAndFlush(response, exchange.client().channel().voidPromise());
        } else if (decision instanceof Decision.Partial range) {
            body(exchange, representation, range.start(), range.length(), true);
        } else {
            body(exchange, representation, 0, file.size(), false);
        }
    }

    private void body(StaticExchange exchange, Representation representation, long start, long length,
            boolean partial) {
        FileMeta file = representation.file();
        HttpResponseStatus status = partial ? HttpResponseStatus.PARTIAL_CONTENT : HttpResponseStatus.OK;
        boolean head = exchange.request().method().equals(HttpMethod.HEAD);
        Channel channel = exchange.client().channel();
        if (head || length == 0) {
            HttpResponse response = full(status, Unpooled.EMPTY_BUFFER);
            entityHeaders(response.headers(), representation, start, length, partial);
            exchange.answering();
            channel.writeAndFlush(response, channel.voidPromise());
        } else if (cache.sendsFromDescriptor(file) && sendfileAlways(exchange) && !splicesDearly(exchange, file)) {
            FileRegion region = cache.cachedRegion(file, start, length);
            if (region != null) {
                // the common case for a file sent before: no open, no stat, no hop to the file executor
                sendFile(exchange, representation, region, status, start, length, partial);
                return;
            }
            exchange.await(cache.openDescriptor(file, start, length),
                    opened -> sendFile(exchange, representation, opened, status, start, length, partial),
                    failure -> exchange.retry(representation, failure), FileRegion::release);
        } else if (cache.fitsInMemory(file) && !partial && compressed(exchange, representation, status, length)) {
            return; // a compressed variant from the cache is on its way
        } else if (cache.fitsInMemory(file)) {
            ByteBuf cached = cache.cachedContent(file);
            if (cached != null) {
                // the common case, answered here: no future and no callbacks to build for bytes already in memory
                sendBytes(exchange, representation, cached, status, start, length, partial);
                return;
            }
            exchange.await(cache.content(file),
                    bytes -> sendBytes(exchange, representation, bytes, status, start, length, partial),
                    failure -> exchange.retry(representation, failure), bytes -> {});
        } else {
            exchange.await(cache.open(file),
                    opened -> sendFile(exchange, representation, opened, status, start, length, partial),
                    failure -> exchange.retry(representation, failure), FileSender::close);
        }
    }

    /**
     * Whether a file sent now would go out by sendfile whatever the response: the connection can sendfile and the
     * location compresses nothing (the compression stage decides only when the head goes by, and a region cannot
     * be compressed; a compressing location's files take the memory or per-response paths, as before).
     */
    private static boolean sendfileAlways(StaticExchange exchange) {
        if (!exchange.client().sendfile()) {
            return false;
        }
        io.portico.exchange.Route route = exchange.client().route();
        return route == null || !route.location().compression().enabled();
    }

    /**
     * On io_uring Netty sends a file region through a pipe made for the response (pipe2 and two closes outside the
     * ring, then two splices per 64 KiB), which costs more than one write of bytes the memory cache holds: a file
     * the cache takes goes from memory there, one gathering write of head and body, as it does over TLS.
     */
    private boolean splicesDearly(StaticExchange exchange, FileMeta file) {
        return cache.fitsInMemory(file) && Transport.of(exchange.client().channel()).splicesFileRegions();
    }

    /**
     * A file's head, its body, then the last content, corked from head to end (nginx's {@code tcp_nopush}). The
     * body is a region of a kept descriptor ({@link FileRegion}) or a file opened for this response
     * ({@link FileChannel}, sent by {@link #writeFile}); either is ours until written, so it is given back if the
     * head cannot be built.
     */
    private void sendFile(StaticExchange exchange, Representation representation, Object body,
            HttpResponseStatus status, long start, long length, boolean partial) {
        HttpResponse response;
        try {
            response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status, HEADERS);
            entityHeaders(response.headers(), representation, start, length, partial);
        } catch (RuntimeException e) {
            if (body instanceof FileRegion region) {
                region.release();
            } else {
                close((FileChannel) body);
            }
            throw e;
        }
        exchange.answering();
        Channel channel = exchange.client().channel();
        boolean corked = TcpCork.on(channel);
        channel.write(response);
        if (body instanceof FileRegion region) {
            channel.write(Transport.of(channel).splicesFileRegions() ? OpenFile.mapped(region) : region);
        } else {
            writeFile(exchange, (FileChannel) body, start, length);
        }
        ChannelFuture done = channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        if (corked) {
            done.addListener(written -> TcpCork.off(channel));
        }
    }

    /** A small file's response from its cached bytes: a duplicate or slice, own indices, nothing to release. */
    private void sendBytes(StaticExchange exchange, Representation representation, ByteBuf bytes,
            HttpResponseStatus status, long start, long length, boolean partial) {
        ByteBuf body = partial ? bytes.slice((int) start, (int) length) : bytes.duplicate();
        HttpResponse response = full(status, body);
        entityHeaders(response.headers(), representation, start, length, partial);
        exchange.answering();
        Channel channel = exchange.client().channel();
        channel.writeAndFlush(response, channel.voidPromise());
    }

    /**
     * A small file the location compresses and the client accepts compressed: its variant, compressed once and
     * kept in the file cache, goes out with its own length; the compression stage leaves an encoded body alone.
     * False (nothing sent) when the response is not to be compressed.
     */
    private boolean compressed(StaticExchange exchange, Representation representation, HttpResponseStatus status,
            long length) {
        io.portico.exchange.Route route = exchange.client().route();
        CompressionConfig config = route == null ? CompressionConfig.OFF : route.location().compression();
        if (!config.enabled() || representation.coding() != null) {
            return false; // a precompressed variant wins
        }
        HttpHeaders headers = HEADERS.newHeaders();
        entityHeaders(headers, representation, 0, length, false);
        HttpResponse probe = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status, headers);
        Coding coding = ResponseCompression.negotiate(config, exchange.request(), probe, length);
        if (coding == null) {
            return false;
        }
        ResponseCompression.rewriteHead(headers, coding);
        Channel channel = exchange.client().channel();
        exchange.await(cache.compressed(representation.file(), coding, config), bytes -> {
            HttpResponse response = new DefaultFullHttpResponse(
                    HttpVersion.HTTP_1_1, status, bytes.duplicate(), headers, TRAILERS.newHeaders());
            headers.set(HttpHeaderNames.CONTENT_LENGTH, bytes.readableBytes());
            exchange.answering();
            channel.writeAndFlush(response, channel.voidPromise());
        }, failure -> exchange.retry(representation, failure), bytes -> {});
        return true;
    }

    /**
     * Hands the open file to the channel: from here on the region or chunked input owns it and closes it. A TLS
     * connection cannot sendfile, nor can a response the compression stage is encoding (it has just seen the head
     * go by); their pipelines have a ChunkedWriteHandler (the server adds it to TLS listeners, HTTP/2 streams and
     * listeners where some location compresses).
     */
    private static void writeFile(StaticExchange exchange, FileChannel file, long start, long length) {
        Channel channel = exchange.client().channel();
        if (exchange.client().sendfile() && !ResponseCompression.compressing(channel)) {
            channel.write(new DefaultFileRegion(file, start, length));
            return;
        }
        try {
            FileChunks chunks = new FileChunks(new ChunkedNioFile(file, start, length, CHUNK_SIZE));
            channel.write(chunks).addListener(written -> {
                if (!written.isSuccess()) {
                    chunks.close(); // failed before ChunkedWriteHandler took it: nobody else closes the file
                }
            });
        } catch (IOException e) {
            close(file);
            channel.close(); // the head is out and the body cannot follow: only closing tells the client
        }
    }

    private static HttpResponse full(HttpResponseStatus status, ByteBuf content) {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content, HEADERS, TRAILERS);
    }

    /** {@code headers} are a new response's, empty: added, not set (a set looks each name up to remove it). */
    private void entityHeaders(HttpHeaders headers, Representation representation, long start, long length,
            boolean partial) {
        FileMeta file = representation.file();
        headers.add(HttpHeaderNames.CONTENT_TYPE, representation.original().values().contentType());
        if (length == file.size()) {
            headers.add(HttpHeaderNames.CONTENT_LENGTH, file.values().length());
        } else {
            headers.add(HttpHeaderNames.CONTENT_LENGTH, length);
        }
        if (partial) {
            headers.add(HttpHeaderNames.CONTENT_RANGE,
                    "bytes " + start + "-" + (start + length - 1) + "/" + file.size());
        }
        headers.add(HttpHeaderNames.ACCEPT_RANGES, HttpHeaderValues.BYTES);
        validators(headers, representation);
    }

    private void validators(HttpHeaders headers, Representation representation) {
        FileMeta file = representation.file();
        headers.add(HttpHeaderNames.LAST_MODIFIED, file.values().lastModified());
        headers.add(HttpHeaderNames.ETAG, file.values().etag());
        if (representation.coding() != null) {
            headers.add(HttpHeaderNames.CONTENT_ENCODING, representation.coding().token);
        }
        if (representation.vary()) {
            headers.add(HttpHeaderNames.VARY, VARY_ACCEPT_ENCODING);
        }
        caching.addTo(headers);
    }

    static void close(FileChannel file) {
        try {
            file.close();
        } catch (IOException ignored) {
            // nothing was written from it; a failed close leaks nothing more than it already has
        }
    }
}
