package io.portico.testing;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A parsed raw HTTP response: status, headers (names lower-cased) and body. */
public record Response(int status, Map<String, String> headers, byte[] body) {

    static Response parseHead(String head) {
        String[] lines = head.split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        return new Response(Integer.parseInt(statusLine[1]), headers, new byte[0]);
    }

    Response withBody(byte[] body) {
        return new Response(status, headers, body);
    }

    public String header(String name) {
        return headers.get(name.toLowerCase(Locale.ROOT));
    }

    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
