package io.portico.hardening;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One request on a new raw connection, read defensively: the final response head (interim 1xx skipped), as much
 * of a Content-Length body as arrives, whether the server then closed, and how long it all took. For faults
 * where the response may stop half-way, which {@link RawHttp#read} treats as an error.
 */
record Exchange(int status, String head, int declaredLength, byte[] body, boolean closed, long millis) {

    static Exchange run(int port, String request) throws IOException {
        long start = System.nanoTime();
        try (RawHttp c = new RawHttp(port)) {
            c.setTimeout(3000);
            c.send(request);
            Response head;
            try {
                do {
                    head = c.readHead();
                } while (head.status() < 200);
            } catch (SocketTimeoutException e) {
                throw e;
            } catch (IOException closedOrReset) {
                return new Exchange(-1, "", -1, new byte[0], true, elapsed(start));
            }
            String length = head.header("content-length");
            int declared = length == null ? -1 : Integer.parseInt(length);
            boolean chunked = "chunked".equalsIgnoreCase(head.header("transfer-encoding"));
            // The body as it comes, chunk framing included, since it may stop anywhere.
            InputStream in = c.input();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            boolean closed = false;
            try {
                while (chunked ? !endsChunked(body) : body.size() < Math.max(declared, 0)) {
                    int b = in.read();
                    if (b < 0) {
                        closed = true;
                        break;
                    }
                    body.write(b);
                }
                if (!closed) {
                    c.setTimeout(150);
                    closed = in.read() < 0;
                }
            } catch (SocketTimeoutException e) {
                closed = false;
            } catch (IOException e) {
                closed = true; // reset
            }
            return new Exchange(head.status(), head.head(), declared, body.toByteArray(), closed, elapsed(start));
        }
    }

    private static boolean endsChunked(ByteArrayOutputStream body) {
        return body.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n0\r\n\r\n");
    }

    private static long elapsed(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    boolean abortedShort() {
        if (declaredLength >= 0) {
            return closed && body.length < declaredLength;
        }
        return closed && head.toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked")
                && !text().endsWith("\r\n0\r\n\r\n");
    }

    String text() {
        return new String(body, StandardCharsets.ISO_8859_1);
    }
}
