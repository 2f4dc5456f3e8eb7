package io.portico.compress;

import io.portico.config.CompressionConfig.Coding;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The coding an Accept-Encoding field asks for (RFC 9110 12.5.3), for on-the-fly compression and for the static
 * files' precompressed variants alike: the highest q among the codings offered, the caller's order breaking ties;
 * {@code q=0} refuses a coding, {@code *} stands for codings not named, {@code x-gzip} is {@code gzip}, and an
 * {@code identity} preferred over every offered coding wins (so does no field at all). A malformed entry is
 * ignored, as nginx and Caddy do.
 */
public final class AcceptEncoding {
    /** RFC 9110's qvalue: 0 to 1 with up to three decimals. */
    private static final Pattern QVALUE = Pattern.compile("0(\\.\\d{0,3})?|1(\\.0{0,3})?");

    private AcceptEncoding() {}

    /** The coding to compress with, or null to send the body as it is. */
    static Coding choose(String field, ResponseCompression.Offer offered) {
        if (field == null || field.isEmpty() || offered.codings().isEmpty()) {
            return null;
        }
        int chosen = choose(field, offered.tokens());
        return chosen < 0 ? null : offered.codings().get(chosen);
    }

    /**
     * The index of the content-coding token (lower case, in order of preference) the field picks, or -1 for none
     * (the body as it is). A null token is a coding not on offer.
     */
    public static int choose(String field, String[] tokens) {
        if (field == null || field.isEmpty()) {
            return -1;
        }
        double[] q = new double[tokens.length];
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
            if (name.equals("*")) {
                star = quality;
            } else if (name.equals("identity")) {
                identity = quality;
            } else {
                String token = name.equals("x-gzip") ? "gzip" : name;
                for (int i = 0; i < tokens.length; i++) {
                    if (token.equals(tokens[i])) {
                        q[i] = quality;
                    }
                }
            }
        }
        int best = -1;
        double bestQ = 0;
        for (int i = 0; i < tokens.length; i++) {
            double quality = q[i] >= 0 ? q[i] : Math.max(star, 0);
            if (tokens[i] != null && quality > bestQ) {
                best = i;
                bestQ = quality;
            }
        }
        return best >= 0 && identity > bestQ ? -1 : best;
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
