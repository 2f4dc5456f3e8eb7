package io.portico.compress;

import io.portico.config.CompressionConfig.Coding;
import java.util.List;
import java.util.Locale;

/**
 * The coding an Accept-Encoding field asks for (RFC 9110 12.5.3): the highest q among the codings offered, the
 * server's order breaking ties; {@code q=0} refuses a coding, {@code *} stands for codings not named, and an
 * {@code identity} preferred over every offered coding wins (so does no field at all). A malformed entry is
 * ignored, as nginx and Caddy do.
 */
final class AcceptEncoding {
    /** RFC 9110's qvalue: 0 to 1 with up to three decimals. */
    private static final java.util.regex.Pattern QVALUE = java.util.regex.Pattern.compile("0(\\.\\d{0,3})?|1(\\.0{0,3})?");

    private AcceptEncoding() {}

    /** The coding to use, or null to send the body as it is. */
    static Coding choose(String field, List<Coding> offered) {
        if (field == null || field.isEmpty() || offered.isEmpty()) {
            return null;
        }
        double[] q = new double[Coding.values().length];
        java.util.Arrays.fill(q, -1);
        double star = -1;
        double identity = -1;
        int start = 0;
        while (start <= field.length()) {
            int comma = field.indexOf(',', start);
            int end = comma < 0 ? field.length() : comma;
            String part = field.substring(start, end);
            start = end + 1;
            int semi = part.indexOf(';');
            String name = (semi < 0 ? part : part.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
            double quality = semi < 0 ? 1 : quality(part.substring(semi + 1));
            if (quality < 0 || name.isEmpty()) {
                continue;
            }
            switch (name) {
                case "*" -> star = quality;
                case "identity" -> identity = quality;
                case "gzip", "x-gzip" -> q[Coding.GZIP.ordinal()] = quality;
                case "br" -> q[Coding.BR.ordinal()] = quality;
                case "zstd" -> q[Coding.ZSTD.ordinal()] = quality;
                default -> {
                    // a coding Portico does not produce (deflate, compress): nothing to offer for it
                }
            }
        }
        Coding best = null;
        double bestQ = 0;
        for (Coding coding : offered) {
            double quality = q[coding.ordinal()] >= 0 ? q[coding.ordinal()] : Math.max(star, 0);
            if (quality > bestQ) {
                best = coding;
                bestQ = quality;
            }
        }
        return best != null && identity > bestQ ? null : best;
    }

    /** The q of ";q=0.5" parameters: 1 without one, -1 when malformed. */
    private static double quality(String params) {
        for (String param : params.split(";")) {
            String p = param.trim();
            if (p.length() > 2 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q') && p.charAt(1) == '=') {
                String v = p.substring(2).trim();
                if (!QVALUE.matcher(v).matches()) {
                    return -1;
                }
                return Double.parseDouble(v);
            }
        }
        return 1;
    }
}
