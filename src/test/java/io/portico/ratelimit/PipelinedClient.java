package io.portico.ratelimit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A keep-alive connection that writes a batch of requests at once (pipelined) and reads their responses in
 * order, returning only the status codes: the cheapest way for a test to push a million requests through the
 * real server. Responses must carry Content-Length (every Portico error page and return response does).
 */
final class PipelinedClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    PipelinedClient(InetSocketAddress from, int port) throws IOException {
        socket = new Socket();
        if (from != null) {
            socket.bind(from);
        }
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(20_000);
        out = socket.getOutputStream();
        in = socket.getInputStream();
    }

    /** Sends {@code requests} (already encoded, back to back) and returns the status of each of the {@code n}. */
    int[] exchange(byte[] requests, int n) throws IOException {
        out.write(requests);
        out.flush();
        int[] statuses = new int[n];
        for (int i = 0; i < n; i++) {
            statuses[i] = readResponse();
        }
        return statuses;
    }

    private int readResponse() throws IOException {
        int status = -1;
        long length = 0;
        for (int lineNo = 0;; lineNo++) {
            int end = lineEnd();
            int from = lineStart;
            if (end == from) {
                break; // the empty line after the head
            }
            if (lineNo == 0) {
                status = (buf[from + 9] - '0') * 100 + (buf[from + 10] - '0') * 10 + (buf[from + 11] - '0');
            } else if (end - from > 15 && new String(buf, from, 15, StandardCharsets.ISO_8859_1)
                    .equalsIgnoreCase("content-length:")) {
                length = Long.parseLong(
                        new String(buf, from + 15, end - from - 15, StandardCharsets.ISO_8859_1).trim());
            }
        }
        while (length > 0) {
            if (pos == limit) {
                fill();
            }
            int skip = (int) Math.min(length, limit - pos);
            pos += skip;
            length -= skip;
        }
        return status;
    }

    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int limit;
    private int lineStart;

    /**
     * The index of the CR ending the line at {@code pos}, whose start is then {@code lineStart} (the buffer may
     * have been compacted); {@code pos} moves past its LF.
     */
    private int lineEnd() throws IOException {
        for (int i = pos;; i++) {
            if (i + 1 >= limit) {
                int shift = pos;
                System.arraycopy(buf, pos, buf, 0, limit - pos);
                limit -= shift;
                pos = 0;
                i -= shift;
                fill();
            }
            if (buf[i] == '\r' && buf[i + 1] == '\n') {
                lineStart = pos;
                pos = i + 2;
                return i;
            }
        }
    }

    private void fill() throws IOException {
        if (pos == limit) {
            pos = 0;
            limit = 0;
        }
        int n = in.read(buf, limit, buf.length - limit);
        if (n < 0) {
            throw new IOException("connection closed by the server");
        }
        limit += n;
    }

    static byte[] ascii(CharSequence text) {
        return text.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
