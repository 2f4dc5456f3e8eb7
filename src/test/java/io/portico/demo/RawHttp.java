package io.portico.demo;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Reads HTTP/1.1 responses off a raw stream, byte by byte, so tests see exactly what went over the wire. */
final class RawHttp {

    record Response(int status, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private RawHttp() {}

    static byte[] request(String method, String target, String... headers) {
        StringBuilder out = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: test\r\n");
        for (String header : headers) {
            out.append(header).append("\r\n");
        }
        return out.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** One response; the body is read by Content-Length, and not at all when {@code head}. */
    static Response read(InputStream in, boolean head) throws IOException {
        String statusLine = line(in);
        int status = Integer.parseInt(statusLine.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(in); !line.isEmpty(); line = line(in)) {
            int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        int length = head ? 0 : Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("body ended after " + body.length + " of " + length + " bytes");
        }
        return new Response(status, headers, body);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new IOException("connection closed mid-head");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }
}
