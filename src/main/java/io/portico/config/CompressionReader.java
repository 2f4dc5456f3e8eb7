package io.portico.config;

import io.portico.config.CompressionConfig.Coding;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Reads a location's {@code compression} block (over defaults.location.compression). */
final class CompressionReader {
    private static final Set<String> KEYS =
            Set.of("enabled", "codings", "types", "min-length", "gzip-level", "brotli-level", "zstd-level");

    private CompressionReader() {}

    static CompressionConfig read(Node location) {
        return location.object("compression", null).map(CompressionReader::readBlock).orElse(CompressionConfig.OFF);
    }

    private static CompressionConfig readBlock(Node n) {
        boolean enabled = n.bool("enabled");
        List<Coding> codings = new ArrayList<>();
        for (String name : n.strings("codings")) {
            Coding coding = coding(name);
            if (coding == null) {
                n.problem("codings", "'" + name + "' (expected: any of zstd, br, gzip)");
            } else if (codings.contains(coding)) {
                n.problem("codings", "'" + name + "' twice (expected: each coding once)");
            } else {
                codings.add(coding);
            }
        }
        Set<String> types = new LinkedHashSet<>();
        for (String type : n.strings("types")) {
            String t = type.trim().toLowerCase(Locale.ROOT);
            if (!t.matches("[a-z0-9!#$&^_.+-]+/([a-z0-9!#$&^_.+-]+|\\*)")) {
                n.problem("types", "'" + type + "' (expected: a media type such as text/html or text/*, no parameters)");
            } else {
                types.add(t);
            }
        }
        long minLength = n.bytes("min-length", 0, Integer.MAX_VALUE);
        int gzip = n.integer("gzip-level", 1, 9);
        int brotli = n.integer("brotli-level", 0, 11);
        int zstd = n.integer("zstd-level", 1, 22);
        n.finish(KEYS, "");
        if (enabled && codings.isEmpty()) {
            n.problem("codings", "is empty (expected: at least one of zstd, br, gzip, or enabled = false)");
        }
        return new CompressionConfig(enabled, codings, types, minLength, gzip, brotli, zstd);
    }

    private static Coding coding(String name) {
        for (Coding c : Coding.values()) {
            if (c.token.equalsIgnoreCase(name.trim())) {
                return c;
            }
        }
        return null;
    }
}
