package io.portico.hardening;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One request on a new raw connection, read defensively: the final response head (interim 1xx skipped), as much
 * of a Content-Length body as arrives, whether the server then closed, and how long it all took. For faults
 * where the response may stop half-way, which {@code RawHttp.read} treats as an error.
 */
record Exchange(int status, String head, int declaredLength, byte[] body, boolean closed, long millis) {

    static Exchange run(int port, String request) throws IOException {
        long start = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            s.setSoTimeout(3000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            InputStream in = s.getInputStream();
            String head;
            do {
                head = readHead(in);
            } while (head != null && head.startsWith("HTTP/1.1 1"));
            if (head == null) {
                return new Exchange(-1, "", -1, new byte[0], true, elapsed(start));
            }
            int status = Integer.parseInt(head.substring(9, 12));
            int declared = contentLength(head);
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            boolean closed = false;
            try {
                boolean chunked = head.toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked");
                while (chunked ? !endsChunked(body) : body.size() < Math.max(declared, 0)) {
                    int b = in.read();
                    if (b < 0) {
                        closed = true;
                        break;
                    }
                    body.write(b);
                }
                if (!closed) {
                    s.setSoTimeout(150);
                    closed = in.read() < 0;
                }
            } catch (SocketTimeoutException e) {
                closed = false;
            } catch (IOException e) {
                closed = true; // reset
            }
            return new Exchange(status, head, declared, body.toByteArray(), closed, elapsed(start));
        }
    }

    private static boolean endsChunked(ByteArrayOutputStream body) {
        return body.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n0\r\n\r\n");
    }

    private static long elapsed(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }

    private static int contentLength(String head) {
        String lower = head.toLowerCase(Locale.ROOT);
        int at = lower.indexOf("\r\ncontent-length:");
        if (at < 0) {
            return -1;
        }
        return Integer.parseInt(lower.substring(at + 17, lower.indexOf("\r\n", at + 2)).trim());
    }

    /** A head up to CRLFCRLF, or null when the connection ends (or is reset) first. */
    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        int matched = 0;
        try {
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    return null;
                }
                h.write(b);
                matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                        ? matched + 1 : (b == '\r' ? 1 : 0);
            }
        } catch (SocketTimeoutException e) {
            throw e;
        } catch (IOException e) {
            return null;
        }
        return h.toString(StandardCharsets.ISO_8859_1);
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
