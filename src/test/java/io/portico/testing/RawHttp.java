package io.portico.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A client that sends exact bytes, since ordinary HTTP clients cannot send malformed requests, and reads
 * responses the same way: whole responses by Content-Length, then whether the server closed.
 */
public final class RawHttp implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;

    public RawHttp(int port) throws IOException {
        this(connect(port));
    }

    /** Over a socket already connected (a TLS socket, say). */
    public RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        socket.setSoTimeout(5000);
        in = socket.getInputStream();
    }

    private static Socket connect(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        return s;
    }

    public RawHttp send(String text) throws IOException {
        return send(text.getBytes(StandardCharsets.ISO_8859_1));
    }

    public RawHttp send(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
        return this;
    }

    /** A response head and a body of Content-Length bytes (none when absent, or for HEAD when {@code head}). */
    public Response read(boolean head) throws IOException {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + h.size() + " bytes of head: " + h);
            }
            h.write(b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        Response r = Response.parseHead(h.toString(StandardCharsets.ISO_8859_1));
        int length = r.header("content-length") == null || head ? 0 : Integer.parseInt(r.header("content-length"));
        byte[] body = in.readNBytes(length);
        return r.withBody(body);
    }

    public Response read() throws IOException {
        return read(false);
    }

    /** Whether the server closed the connection (reads to end of stream, up to the socket timeout). */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    /** Shuts the sending side only (a FIN; {@code shutdown(SHUT_WR)}): the client sends nothing more but reads on. */
    public RawHttp shutdownOutput() throws IOException {
        socket.shutdownOutput();
        return this;
    }

    public void setTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
