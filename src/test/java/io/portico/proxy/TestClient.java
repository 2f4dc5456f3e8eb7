package io.portico.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** A raw HTTP/1.1 client on one socket: writes exactly the bytes given, parses responses strictly. */
final class TestClient implements AutoCloseable {
    record Response(int status, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    final Socket socket;
    final InputStream in;
    final OutputStream out;

    TestClient(int port) throws IOException {
        this(port, 0);
    }

    TestClient(int port, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.setSoTimeout(20_000);
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    TestClient send(String raw) throws IOException {
        out.write(raw.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return this;
    }

    Response get(String path) throws IOException {
        send("GET " + path + " HTTP/1.1\r\nHost: front.test\r\n\r\n");
        return read();
    }

    Response readHead() throws IOException {
        String status = TestUpstream.line(in);
        if (status == null) {
            throw new IOException("connection closed before a response");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (String h; (h = TestUpstream.line(in)) != null && !h.isEmpty(); ) {
            int colon = h.indexOf(':');
            headers.merge(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim(),
                    (a, b) -> a + ", " + b);
        }
        return new Response(Integer.parseInt(status.split(" ")[1]), headers, new byte[0]);
    }

    Response read() throws IOException {
        Response head = readHead();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String cl = head.header("content-length");
        if ("chunked".equalsIgnoreCase(head.header("transfer-encoding"))) {
            for (int size; (size = Integer.parseInt(TestUpstream.line(in).trim(), 16)) > 0; ) {
                body.write(in.readNBytes(size));
                TestUpstream.line(in);
            }
            TestUpstream.line(in);
        } else if (cl != null) {
            body.write(in.readNBytes(Integer.parseInt(cl)));
        }
        return new Response(head.status(), head.headers(), body.toByteArray());
    }

    /** True when the server closed the connection (EOF) instead of sending more. */
    boolean closedByPeer() throws IOException {
        try {
            return in.read() == -1;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
