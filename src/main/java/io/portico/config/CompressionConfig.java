package io.portico.config;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A location's {@code compression}: which responses are compressed on the way out, with which codings and levels
 * (nginx's gzip module, Caddy's {@code encode}).
 *
 * @param enabled off: responses go out as the location produced them
 * @param codings offered codings in server preference among equal q-values; one whose library does not load is
 *     not offered
 * @param types media types (without parameters, lower case) that are compressed; {@code type/*} covers a family
 * @param minLength a body whose length is known and under this goes out as it is
 */
public record CompressionConfig(
        boolean enabled, List<Coding> codings, Set<String> types, long minLength, int gzipLevel, int brotliLevel,
        int zstdLevel) {

    /** No compression: what a location without the block, or one built in code, has. */
    public static final CompressionConfig OFF = new CompressionConfig(false, List.of(), Set.of(), 0, 5, 4, 3);

    /** The content codings Portico can produce, with their Accept-Encoding tokens. */
    public enum Coding {
        ZSTD("zstd"),
        BR("br"),
        GZIP("gzip");

        public final String token;

        Coding(String token) {
            this.token = token;
        }
    }

    public CompressionConfig {
        codings = List.copyOf(codings);
        types = Set.copyOf(types);
    }

    /** Whether a response of this Content-Type ({@code text/html; charset=utf-8}) is compressed. */
    public boolean compressible(String contentType) {
        if (contentType == null) {
            return false;
        }
        int semi = contentType.indexOf(';');
        String type = (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
        if (types.contains(type)) {
            return true;
        }
        int slash = type.indexOf('/');
        return slash > 0 && types.contains(type.substring(0, slash + 1) + "*");
    }
}
