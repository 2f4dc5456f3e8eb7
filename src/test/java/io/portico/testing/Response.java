package io.portico.testing;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A response as {@link RawHttp} read it: status, the head as received, every header field in order (names
 * lower-cased, repeated names kept) and the body with its framing removed.
 */
public record Response(int status, String head, List<Field> fields, byte[] body) {

    /** One header field line. */
    public record Field(String name, String value) {}

    static Response parseHead(String head) {
        String[] lines = head.split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        List<Field> fields = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                fields.add(new Field(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim()));
            }
        }
        return new Response(Integer.parseInt(statusLine[1]), head, List.copyOf(fields), new byte[0]);
    }

    Response withBody(byte[] body) {
        return new Response(status, head, fields, body);
    }

    /** The field's value, its repeated lines joined with ", " as a recipient may combine them; null when absent. */
    public String header(String name) {
        List<String> all = all(name);
        return all.isEmpty() ? null : String.join(", ", all);
    }

    /** Every value of the field, one per line, in order. */
    public List<String> all(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return fields.stream().filter(f -> f.name().equals(lower)).map(Field::value).toList();
    }

    /** The body as UTF-8. */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** The body byte for byte as ISO-8859-1 (what a CGI app echoes back is bytes, not UTF-8). */
    public String latin1() {
        return new String(body, StandardCharsets.ISO_8859_1);
    }
}
