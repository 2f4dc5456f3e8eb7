package io.portico.staticfile;

import io.portico.compress.AcceptEncoding;

/** The precompressed variants looked for next to a file, in order of preference on equal q-values. */
enum ContentCoding {
    BR("br", ".br"),
    ZSTD("zstd", ".zst"),
    GZIP("gzip", ".gz");

    static final ContentCoding[] PREFERENCE = values();

    final String token;
    final String suffix;

    ContentCoding(String token, String suffix) {
        this.token = token;
        this.suffix = suffix;
    }

    /**
     * The best variant the client accepts among {@code available} (indexed by ordinal), or null for the original:
     * the same negotiation as on-the-fly compression ({@link AcceptEncoding}).
     */
    static ContentCoding choose(String acceptEncoding, boolean[] available) {
        if (acceptEncoding == null || acceptEncoding.isEmpty()) {
            return null;
        }
        String[] tokens = new String[PREFERENCE.length];
        for (ContentCoding coding : PREFERENCE) {
            tokens[coding.ordinal()] = available[coding.ordinal()] ? coding.token : null;
        }
        int chosen = AcceptEncoding.choose(acceptEncoding, tokens);
        return chosen < 0 ? null : PREFERENCE[chosen];
    }
}
