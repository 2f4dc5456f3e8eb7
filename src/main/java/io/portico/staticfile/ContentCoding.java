package io.portico.staticfile;

import java.util.Locale;

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
     * The best variant the client accepts among {@code available} (indexed by ordinal), or null for the original.
     * q=0 refuses a coding; {@code *} covers codings not named; {@code identity} with a higher q wins.
     */
    static ContentCoding choose(String acceptEncoding, boolean[] available) {
        if (acceptEncoding == null || acceptEncoding.isEmpty()) {
            return null;
        }
        double[] q = {-1, -1, -1};
        double star = -1;
        double identity = -1;
        for (String part : acceptEncoding.split(",")) {
            int semi = part.indexOf(';');
            String name = (semi < 0 ? part : part.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
            double quality = semi < 0 ? 1 : quality(part.substring(semi + 1));
            if (quality < 0 || name.isEmpty()) {
                continue; // malformed entry: ignored
            }
            if (name.equals("*")) {
                star = quality;
            } else if (name.equals("identity")) {
                identity = quality;
            } else {
                for (ContentCoding coding : PREFERENCE) {
                    if (coding.token.equals(name) || (coding == GZIP && name.equals("x-gzip"))) {
                        q[coding.ordinal()] = quality;
                    }
                }
            }
        }
        ContentCoding best = null;
        double bestQ = 0;
        for (ContentCoding coding : PREFERENCE) {
            double quality = q[coding.ordinal()] >= 0 ? q[coding.ordinal()] : Math.max(star, 0);
            if (available[coding.ordinal()] && quality > bestQ) {
                best = coding;
                bestQ = quality;
            }
        }
        return best != null && identity > bestQ ? null : best;
    }

    /** The q of ";q=0.5" parameters, 1 when there is no q, -1 when malformed. */
    private static double quality(String params) {
        for (String param : params.split(";")) {
            String p = param.trim();
            if (p.length() > 2 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q') && p.charAt(1) == '=') {
                String v = p.substring(2).trim();
                if (!v.matches("(0(\\.\\d{0,3})?|1(\\.0{0,3})?)")) {
                    return -1;
                }
                return Double.parseDouble(v);
            }
        }
        return 1;
    }
}
