package io.portico.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A blocking HTTP/1.1 app server for tests, on loopback TCP or a unix socket: one thread per connection, every
 * request recorded, answers scripted by a {@link Script}.
 */
final class TestUpstream implements AutoCloseable {

    record Request(int connection, int indexOnConnection, String method, String uri, Map<String, List<String>> headers,
            byte[] body) {
        String header(String name) {
            List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
            return v == null ? null : String.join(", ", v);
        }
    }

    /** Answers one request; returns false to close the connection afterwards. */
    interface Script {
        boolean answer(Request request, OutputStream out, SocketChannel socket) throws IOException;
    }

    static Script ok(String body) {
        return (req, out, s) -> {
            respond(out, 200, body);
            return true;
        };
    }

    static void respond(OutputStream out, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " X\r\nContent-Length: " + b.length + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(b);
        out.flush();
    }

    final ServerSocketChannel server;
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger headsSeen = new AtomicInteger();
    final AtomicInteger closedConnections = new AtomicInteger();
    final ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();
    final AtomicLong bytesWritten = new AtomicLong();
    private final List<SocketChannel> open = new ArrayList<>();
    volatile Script script;
    private final Thread acceptor;

    TestUpstream(Script script) throws IOException {
        this(script, null);
    }

    TestUpstream(Script script, Path unixPath) throws IOException {
        this.script = script;
        if (unixPath == null) {
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress("127.0.0.1", 0));
        } else {
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(unixPath));
        }
        acceptor = new Thread(this::acceptLoop, "test-upstream");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    int port() throws IOException {
        return address().getPort();
    }

    private void acceptLoop() {
        try {
            while (true) {
                SocketChannel s = server.accept();
                int id = connections.incrementAndGet();
                synchronized (open) {
                    open.add(s);
                }
                Thread t = new Thread(() -> serve(s, id), "test-upstream-" + id);
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException closed) {
            // server closed
        }
    }

    private void serve(SocketChannel s, int id) {
        try (s) {
            InputStream in = Channels.newInputStream(s);
            OutputStream out = counting(Channels.newOutputStream(s));
            for (int n = 1; ; n++) {
                Request r = read(in, id, n);
                if (r == null) {
                    return;
                }
                requests.add(r);
                if (!script.answer(r, out, s)) {
                    return;
                }
            }
        } catch (IOException e) {
            // peer went away
        } finally {
            closedConnections.incrementAndGet();
        }
    }

    private OutputStream counting(OutputStream out) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
                bytesWritten.incrementAndGet();
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                out.write(b, off, len);
                bytesWritten.addAndGet(len);
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }
        };
    }

    private Request read(InputStream in, int conn, int n) throws IOException {
        String line = line(in);
        if (line == null) {
            return null;
        }
        String[] parts = line.split(" ");
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String h; (h = line(in)) != null && !h.isEmpty(); ) {
            int colon = h.indexOf(':');
            headers.computeIfAbsent(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(h.substring(colon + 1).trim());
        }
        headsSeen.incrementAndGet();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<String> cl = headers.get("content-length");
        List<String> te = headers.get("transfer-encoding");
        if (te != null && te.get(0).equalsIgnoreCase("chunked")) {
            for (int size; (size = Integer.parseInt(line(in).split(";")[0].trim(), 16)) > 0; ) {
                body.write(in.readNBytes(size));
                line(in);
            }
            while (!line(in).isEmpty()) {
                // trailers
            }
        } else if (cl != null) {
            body.write(in.readNBytes(Integer.parseInt(cl.get(0))));
        }
        return new Request(conn, n, parts[0], parts[1], headers, body.toByteArray());
    }

    static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c; (c = in.read()) != -1; ) {
            if (c == '\n') {
                int len = sb.length();
                return len > 0 && sb.charAt(len - 1) == '\r' ? sb.substring(0, len - 1) : sb.toString();
            }
            sb.append((char) c);
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    static void sendBuffer(SocketChannel s, int bytes) throws IOException {
        s.setOption(StandardSocketOptions.SO_SNDBUF, bytes);
    }

    SocketAddress localAddress() throws IOException {
        return server.getLocalAddress();
    }

    @Override
    public void close() throws IOException {
        server.close();
        synchronized (open) {
            for (SocketChannel s : open) {
                s.close();
            }
        }
    }
}
