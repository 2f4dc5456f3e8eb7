package io.portico.testing;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The tests' one raw HTTP/1.1 client. It sends exact bytes, since ordinary HTTP clients cannot send malformed,
 * pipelined or half-sent requests, and reads responses one at a time with their own framing: Content-Length,
 * chunked (trailers skipped), or until the server closes; none for a 1xx, 204 or 304, or for HEAD when asked.
 * An interim 1xx is a response of its own, so a test sees the {@code 100 Continue} it waits for. Reads block up
 * to the timeout (20 s unless set), so a server that never answers fails a test rather than hanging it.
 *
 * <p>Its buffer is its own (no lock per byte), so that a test can push a million pipelined requests through;
 * {@link #input()} reads on from that buffer for a test that must see raw bytes (a body cut short, a stream it
 * hashes as it arrives).
 */
public final class RawHttp implements AutoCloseable {
    private static final int DEFAULT_TIMEOUT_MILLIS = 20_000;

    private final Socket socket; // null over a channel (a unix socket)
    private final Closeable connection;
    private final OutputStream out;
    private final Input in;

    public RawHttp(int port) throws IOException {
        this(connect(new Socket(), port));
    }

    /** Over a socket already connected (a TLS socket, one bound to a chosen source address, ...). */
    public RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        this.connection = socket;
        socket.setSoTimeout(DEFAULT_TIMEOUT_MILLIS);
        out = socket.getOutputStream();
        in = new Input(socket.getInputStream());
    }

    private RawHttp(SocketChannel channel) {
        this.socket = null;
        this.connection = channel;
        out = Channels.newOutputStream(channel);
        in = new Input(Channels.newInputStream(channel));
    }

    /** Over a connected channel, a unix domain socket say (reads then have no timeout). */
    public static RawHttp over(SocketChannel channel) {
        return new RawHttp(channel);
    }

    /** With a small receive buffer, set before connecting so that the window it advertises is small too. */
    public static RawHttp withReceiveBuffer(int port, int bytes) throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(bytes);
        return new RawHttp(connect(s, port));
    }

    /** From a chosen local address (another loopback address is another client to the server). */
    public static RawHttp from(InetSocketAddress local, int port) throws IOException {
        Socket s = new Socket();
        s.bind(local);
        return new RawHttp(connect(s, port));
    }

    private static Socket connect(Socket s, int port) throws IOException {
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        return s;
    }

    /** One request on a new connection, its response read whole (to the close when it has no length). */
    public static Response exchange(int port, String request) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            return c.send(request).read(request.startsWith("HEAD "));
        }
    }

    /** {@code GET path} with a Host header, and its response. */
    public Response get(String path) throws IOException {
        return send("GET " + path + " HTTP/1.1\r\nHost: front.test\r\n\r\n").read();
    }

    public RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawHttp send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** The next response, interim ones included. */
    public Response read() throws IOException {
        return read(false);
    }

    /** The next response; {@code head}: it answers a HEAD request, so has no body whatever its headers say. */
    public Response read(boolean head) throws IOException {
        Response r = readHead();
        int status = r.status();
        if (head || status < 200 || status == 204 || status == 304) {
            return r;
        }
        String length = r.header("content-length");
        String coding = r.header("transfer-encoding");
        if (coding != null && coding.toLowerCase(Locale.ROOT).endsWith("chunked")) {
            return r.withBody(readChunked());
        }
        if (length != null) {
            int n = Integer.parseInt(length);
            byte[] body = in.readNBytes(n);
            if (body.length < n) {
                throw new IOException("closed after " + body.length + " of " + n + " body bytes: " + r.head());
            }
            return r.withBody(body);
        }
        return r.withBody(in.readAllBytes());
    }

    /** The next final response, interim 1xx ones skipped. */
    public Response readFinal(boolean head) throws IOException {
        Response r;
        do {
            r = read(head);
        } while (r.status() < 200);
        return r;
    }

    /** A response head (up to its empty line), its body left unread. */
    public Response readHead() throws IOException {
        byte[] h = new byte[256];
        int size = 0;
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new ClosedException("closed after " + size + " bytes of head: "
                        + new String(h, 0, size, StandardCharsets.ISO_8859_1));
            }
            if (size == h.length) {
                h = java.util.Arrays.copyOf(h, size * 2);
            }
            h[size++] = (byte) b;
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return Response.parseHead(new String(h, 0, size, StandardCharsets.ISO_8859_1));
    }

    private byte[] readChunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (int size; (size = Integer.parseInt(chunkSize(line()), 16)) > 0; ) {
            byte[] chunk = in.readNBytes(size);
            if (chunk.length < size) {
                throw new ClosedException("closed in a chunk after " + body.size() + " body bytes");
            }
            body.write(chunk);
            line();
        }
        while (!line().isEmpty()) {
            // trailer fields
        }
        return body.toByteArray();
    }

    private static String chunkSize(String line) {
        int semicolon = line.indexOf(';');
        return (semicolon < 0 ? line : line.substring(0, semicolon)).trim();
    }

    /** A line without its CRLF (or bare LF). */
    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b; (b = in.read()) != '\n'; ) {
            if (b < 0) {
                throw new ClosedException("closed in a line: " + line);
            }
            line.append((char) b);
        }
        int end = line.length();
        return line.substring(0, end > 0 && line.charAt(end - 1) == '\r' ? end - 1 : end);
    }

    /** Whether the server closed the connection (reads to end of stream, up to the timeout); a reset is a close. */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    /**
     * Everything that arrives until the server closes the connection (end of stream, or a reset, which is a close
     * too); fails if the server keeps it open past the timeout.
     */
    public byte[] readToClose() throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buf = new byte[64 * 1024];
        try {
            for (int n; (n = in.read(buf, 0, buf.length)) >= 0; ) {
                all.write(buf, 0, n);
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server did not close the connection; got " + all.size() + " bytes: "
                    + all.toString(StandardCharsets.ISO_8859_1), e);
        } catch (IOException reset) {
            // a reset is a close too
        }
        return all.toByteArray();
    }

    /** What the connection receives from here on, bytes already buffered first. */
    public InputStream input() {
        return in;
    }

    /** Shuts the sending side only (a FIN; {@code shutdown(SHUT_WR)}): the client sends nothing more but reads on. */
    public RawHttp shutdownOutput() throws IOException {
        socket.shutdownOutput();
        return this;
    }

    public void setTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    public Socket socket() {
        return socket;
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }

    /** The connection ended (or was reset) where a response was still expected. */
    public static final class ClosedException extends IOException {
        ClosedException(String message) {
            super(message);
        }
    }

    /** A buffered stream without the lock that {@code BufferedInputStream} takes per byte. */
    private static final class Input extends InputStream {
        private final InputStream source;
        private final byte[] buf = new byte[64 * 1024];
        private int pos;
        private int limit;

        Input(InputStream source) {
            this.source = source;
        }

        private boolean fill() throws IOException {
            int n = source.read(buf, 0, buf.length);
            if (n < 0) {
                return false;
            }
            pos = 0;
            limit = n;
            return true;
        }

        @Override
        public int read() throws IOException {
            if (pos == limit && !fill()) {
                return -1;
            }
            return buf[pos++] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            if (pos == limit) {
                if (len >= buf.length) {
                    return source.read(b, off, len);
                }
                if (!fill()) {
                    return -1;
                }
            }
            int n = Math.min(len, limit - pos);
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public int available() throws IOException {
            return limit - pos + source.available();
        }
    }
}
