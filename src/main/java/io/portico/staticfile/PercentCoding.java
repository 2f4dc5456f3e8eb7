package io.portico.staticfile;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Percent-decoding for {@link SafePathResolver} (once, strict UTF-8, no smuggled separators or control bytes) and
 * percent-encoding of paths for redirects and links.
 */
final class PercentCoding {
    private PercentCoding() {}

    private static boolean isPlainAscii(String raw) {
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%' || c == '\\' || c < 0x20 || c >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    /** Percent-encodes a decoded path for a header or a link: everything but unreserved characters and '/'. */
    static String encode(String path) {
        StringBuilder out = new StringBuilder(path.length() + 8);
        for (byte b : path.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "/-._~".indexOf(c) >= 0) {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }

    /** Percent-decodes once and decodes UTF-8 strictly; null for anything malformed or dangerous. */
    static String decode(String raw) {
        if (isPlainAscii(raw)) {
            return raw; // nothing to decode: the usual request
        }
        ByteBuffer bytes = ByteBuffer.allocate(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            int b;
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    return null;
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                b = hi << 4 | lo;
                if (b == '/' || b == '\\') {
                    return null; // an encoded separator is never a name character
                }
                i += 2;
            } else if (c == '\\' || c > 0xff) {
                return null;
            } else {
                b = c;
            }
            if (b < 0x20 || b == 0x7f) {
                return null; // NUL and control characters
            }
            bytes.put((byte) b);
        }
        bytes.flip();
        try {
            CharBuffer chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes);
            return chars.toString();
        } catch (CharacterCodingException e) {
            return null; // overlong forms such as %c0%ae land here
        }
    }
}
