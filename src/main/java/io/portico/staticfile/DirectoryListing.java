package io.portico.staticfile;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** autoindex: a plain HTML listing of a directory, read on the cache's executor, names escaped. */
final class DirectoryListing {
    private DirectoryListing() {}

    static void send(StaticExchange exchange, FileMeta dir, String requestPath) {
        boolean dotfiles = exchange.location().target().allowDotfiles();
        CompletableFuture<String> html = CompletableFuture.supplyAsync(
                () -> render(requestPath, list(dir.path(), dotfiles)), exchange.location().cache().executor());
        exchange.await(html, page -> {
            byte[] bytes = page.getBytes(StandardCharsets.UTF_8);
            boolean head = exchange.request().method().equals(HttpMethod.HEAD);
            // a fresh buffer: the codec releases it after the write
            ByteBuf body = head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes);
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body,
                    FileSender.HEADERS, io.portico.exchange.ResponseHeaders.NO_TRAILERS);
            response.headers()
                    .set(HttpHeaderNames.CONTENT_TYPE, "text/html; charset=utf-8")
                    .set(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
            exchange.answering();
            exchange.client().channel().writeAndFlush(response, exchange.client().channel().voidPromise());
        }, failure -> exchange.error(HttpResponseStatus.FORBIDDEN), page -> {});
    }

    /** Names sorted, directories with a trailing '/'; hidden names only when dotfiles are served. */
    static List<String> list(Path dir, boolean dotfiles) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (dotfiles || !name.startsWith(".")) {
                    names.add(Files.isDirectory(entry) ? name + "/" : name);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        names.sort(null);
        return names;
    }

    static String render(String requestPath, List<String> names) {
        String title = "Index of " + escape(requestPath);
        StringBuilder html = new StringBuilder(256 + names.size() * 64)
                .append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>").append(title)
                .append("</title></head>\n<body><h1>").append(title).append("</h1><hr><pre>\n");
        if (!requestPath.equals("/")) {
            html.append("<a href=\"../\">../</a>\n");
        }
        for (String name : names) {
            html.append("<a href=\"").append(escape(PercentCoding.encode(name))).append("\">")
                    .append(escape(name)).append("</a>\n");
        }
        return html.append("</pre><hr></body></html>\n").toString();
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
