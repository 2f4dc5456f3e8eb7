package io.portico.staticfile;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/** File extension to Content-Type: common types built in, config extras on top, UTF-8 charset on text types. */
final class MediaTypes {
    static final String DEFAULT = "application/octet-stream";

    private static final String[] BUILT_IN = {
        "html", "text/html", "htm", "text/html", "css", "text/css", "txt", "text/plain", "csv", "text/csv",
        "md", "text/markdown", "xml", "application/xml", "js", "text/javascript", "mjs", "text/javascript",
        "json", "application/json", "map", "application/json", "jsonld", "application/ld+json",
        "webmanifest", "application/manifest+json", "rss", "application/rss+xml", "atom", "application/atom+xml",
        "svg", "image/svg+xml", "png", "image/png", "jpg", "image/jpeg", "jpeg", "image/jpeg", "gif", "image/gif",
        "webp", "image/webp", "avif", "image/avif", "ico", "image/x-icon", "bmp", "image/bmp", "tif", "image/tiff",
        "tiff", "image/tiff", "woff", "font/woff", "woff2", "font/woff2", "ttf", "font/ttf", "otf", "font/otf",
        "eot", "application/vnd.ms-fontobject", "pdf", "application/pdf", "zip", "application/zip",
        "gz", "application/gzip", "tar", "application/x-tar", "br", "application/x-brotli", "zst", "application/zstd",
        "wasm", "application/wasm", "mp4", "video/mp4", "webm", "video/webm", "ogv", "video/ogg", "mov",
        "video/quicktime", "mp3", "audio/mpeg", "ogg", "audio/ogg", "oga", "audio/ogg", "wav", "audio/wav",
        "flac", "audio/flac", "m4a", "audio/mp4", "aac", "audio/aac", "yaml", "application/yaml",
        "yml", "application/yaml", "ics", "text/calendar", "vtt", "text/vtt",
        "apk", "application/vnd.android.package-archive",
    };

    private final Map<String, String> byExtension = new HashMap<>();

    MediaTypes(Map<String, String> extras) {
        for (int i = 0; i < BUILT_IN.length; i += 2) {
            byExtension.put(BUILT_IN[i], withCharset(BUILT_IN[i + 1]));
        }
        extras.forEach((ext, type) -> byExtension.put(stripDot(ext).toLowerCase(Locale.ROOT), withCharset(type)));
    }

    /** The Content-Type of a file name, by its last extension, case-insensitively. */
    String of(String fileName) {
        int dot = fileName.lastIndexOf('.');
        if (dot < 0 || dot == fileName.length() - 1) {
            return DEFAULT;
        }
        return byExtension.getOrDefault(fileName.substring(dot + 1).toLowerCase(Locale.ROOT), DEFAULT);
    }

    static String withCharset(String type) {
        String lower = type.toLowerCase(Locale.ROOT);
        if (lower.contains("charset=")) {
            return type;
        }
        boolean textual = lower.startsWith("text/")
                || lower.endsWith("+xml")
                || lower.endsWith("+json")
                || lower.equals("application/json")
                || lower.equals("application/xml")
                || lower.equals("application/javascript")
                || lower.equals("application/yaml");
        return textual ? type + "; charset=utf-8" : type;
    }

    private static String stripDot(String ext) {
        return ext.startsWith(".") ? ext.substring(1) : ext;
    }
}
