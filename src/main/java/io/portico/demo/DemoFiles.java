package io.portico.demo;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /files/{path}} the way an app framework serves a file (Flask's {@code send_from_directory}): the
 * worker reads the whole file with blocking I/O, which is exactly the cost a front tier's static files avoid.
 * Runs on a sync worker only.
 */
final class DemoFiles {

    private static final Map<String, String> MEDIA_TYPES = Map.ofEntries(
            Map.entry("html", DemoResponses.HTML),
            Map.entry("htm", DemoResponses.HTML),
            Map.entry("txt", DemoResponses.TEXT),
            Map.entry("css", "text/css; charset=utf-8"),
            Map.entry("js", "text/javascript; charset=utf-8"),
            Map.entry("json", "application/json"),
            Map.entry("xml", "application/xml"),
            Map.entry("svg", "image/svg+xml"),
            Map.entry("png", "image/png"),
            Map.entry("jpg", "image/jpeg"),
            Map.entry("jpeg", "image/jpeg"),
            Map.entry("gif", "image/gif"),
            Map.entry("ico", "image/x-icon"),
            Map.entry("pdf", "application/pdf"));

    private final Path root;

    DemoFiles(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** Answers {@code rawPath}, the still percent-encoded part of the URI path after {@code /files/}. */
    FullHttpResponse serve(String rawPath) {
        Optional<Path> resolved = resolve(rawPath);
        if (resolved.isEmpty()) {
            return DemoResponses.notFound();
        }
        try {
            // Real paths too, so a symlink inside the root cannot lead outside it.
            Path file = resolved.get().toRealPath();
            if (!file.startsWith(root.toRealPath()) || !Files.isRegularFile(file)) {
                return DemoResponses.notFound();
            }
            byte[] body = Files.readAllBytes(file);
            return DemoResponses.of(HttpResponseStatus.OK, mediaType(file), Unpooled.wrappedBuffer(body));
        } catch (NoSuchFileException e) {
            return DemoResponses.notFound();
        } catch (AccessDeniedException e) {
            return DemoResponses.text(HttpResponseStatus.FORBIDDEN, "403 Forbidden\n");
        } catch (IOException e) {
            String why = e.getClass().getSimpleName();
            return DemoResponses.text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "500 " + why + "\n");
        }
    }

    /**
     * Joins {@code rawPath} under the root segment by segment, after percent-decoding each one, so neither
     * {@code ..} nor {@code %2e%2e} nor an encoded slash can climb out; empty when the path is refused.
     */
    Optional<Path> resolve(String rawPath) {
        Path path = root;
        boolean any = false;
        for (String raw : rawPath.split("/", -1)) {
            String segment;
            try {
                // '+' is a literal in a path; the decoder would turn it into a space as in a query.
                segment = QueryStringDecoder.decodeComponent(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException badEscape) {
                return Optional.empty();
            }
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..") || segment.indexOf('/') >= 0 || segment.indexOf('\\') >= 0
                    || segment.indexOf('\0') >= 0) {
                return Optional.empty();
            }
            path = path.resolve(segment);
            any = true;
        }
        Path normalized = path.normalize();
        return any && normalized.startsWith(root) ? Optional.of(normalized) : Optional.empty();
    }

    private static String mediaType(Path file) {
        String name = file.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String extension = dot < 0 ? "" : name.substring(dot + 1).toLowerCase(Locale.ROOT);
        return MEDIA_TYPES.getOrDefault(extension, "application/octet-stream");
    }
}
