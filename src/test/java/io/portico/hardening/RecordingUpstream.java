package io.portico.hardening;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A test upstream on a plain blocking socket (TCP or unix), one thread per connection, that records every byte
 * and every request it receives and answers as its current {@link Behavior} says: the well-behaved default, or
 * one of the faults the hardening suite throws at Portico. Raw bytes rather than an HTTP library, since most
 * behaviors are malformed on purpose.
 */
final class RecordingUpstream implements AutoCloseable {
    /** How one request is answered; read anew for every request, so a change applies to open connections too. */
    @FunctionalInterface
    interface Behavior {
        void answer(Conn conn, Request request) throws IOException;
    }

    /** A request as the upstream read it: its head text and the SHA-256 and length of its decoded body. */
    record Request(String head, long bodyLength, String bodySha256) {
        String requestLine() {
            return head.substring(0, head.indexOf("\r\n"));
        }
    }

    private final ServerSocketChannel listener;
    private final Path unixPath;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicInteger connections = new AtomicInteger();
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final List<SocketChannel> open = new CopyOnWriteArrayList<>();
    private volatile Behavior behavior = RecordingUpstream::keepAliveOk;

    private RecordingUpstream(ServerSocketChannel listener, Path unixPath) {
        this.listener = listener;
        this.unixPath = unixPath;
        Thread acceptor = new Thread(this::acceptLoop, "recording-upstream");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    static RecordingUpstream tcp() throws IOException {
        ServerSocketChannel l = ServerSocketChannel.open();
        l.bind(new InetSocketAddress("127.0.0.1", 0), 256);
        return new RecordingUpstream(l, null);
    }

    static RecordingUpstream unix(Path path) throws IOException {
        ServerSocketChannel l = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        l.bind(UnixDomainSocketAddress.of(path));
        return new RecordingUpstream(l, path);
    }

    /** The server entry for Portico's config: "127.0.0.1:port" or "unix:/path". */
    String address() throws IOException {
        return unixPath != null ? "unix:" + unixPath
                : "127.0.0.1:" + ((InetSocketAddress) listener.getLocalAddress()).getPort();
    }

    RecordingUpstream behave(Behavior b) {
        behavior = b;
        return this;
    }

    long bytesReceived() {
        return bytes.get();
    }

    int connectionsAccepted() {
        return connections.get();
    }

    List<Request> requests() {
        return requests;
    }

    /** Forgets what was recorded and goes back to the default behavior (between test cases). */
    void reset() {
        behavior = RecordingUpstream::keepAliveOk;
        bytes.set(0);
        connections.set(0);
        requests.clear();
    }

    private void acceptLoop() {
        while (listener.isOpen()) {
            try {
                SocketChannel ch = listener.accept();
                connections.incrementAndGet();
                open.add(ch);
                Thread t = new Thread(() -> {
                    try (ch) {
                        Conn conn = new Conn(ch);
                        Request r;
                        while (ch.isOpen() && (r = conn.readRequest()) != null) {
                            behavior.answer(conn, r);
                        }
                    } catch (IOException ignored) {
                        // the peer went away: what the fault tests provoke
                    } finally {
                        open.remove(ch);
                    }
                }, "recording-upstream-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (SocketChannel ch : open) {
            ch.close();
        }
        if (unixPath != null) {
            Files.deleteIfExists(unixPath);
        }
    }

    /** Keep-alive, 200 with "ok " and the request's body length and SHA-256, for every request. */
    static void keepAliveOk(Conn c, Request r) throws IOException {
        String body = "ok " + r.bodyLength() + " " + r.bodySha256();
        c.write("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body);
    }

    /** One accepted connection: counting streams, a request reader, raw writes and a reset. */
    final class Conn {
        final SocketChannel channel;
        final InputStream in;
        final OutputStream out;

        Conn(SocketChannel channel) {
            this.channel = channel;
            InputStream raw = Channels.newInputStream(channel);
            this.in = new InputStream() {
                @Override
                public int read() throws IOException {
                    int b = raw.read();
                    if (b >= 0) {
                        bytes.incrementAndGet();
                    }
                    return b;
                }

                @Override
                public int read(byte[] buf, int off, int len) throws IOException {
                    int n = raw.read(buf, off, len);
                    if (n > 0) {
                        bytes.addAndGet(n);
                    }
                    return n;
                }
            };
            this.out = Channels.newOutputStream(channel);
        }

        /** The next request (head and decoded body, Content-Length or chunked), or null at end of stream. */
        Request readRequest() throws IOException {
            String head = readHead();
            if (head == null) {
                return null;
            }
            MessageDigest sha = sha256();
            long length = 0;
            String lower = head.toLowerCase(Locale.ROOT);
            byte[] buf = new byte[64 * 1024];
            if (lower.contains("\r\ntransfer-encoding: chunked")) {
                while (true) {
                    String sizeLine = readLine();
                    int semi = sizeLine.indexOf(';');
                    long size = Long.parseLong((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
                    if (size == 0) {
                        while (!readLine().isEmpty()) { /* trailers */ }
                        break;
                    }
                    length += copy(size, sha, buf);
                    readLine();
                }
            } else {
                int at = lower.indexOf("\r\ncontent-length:");
                if (at >= 0) {
                    int end = lower.indexOf("\r\n", at + 2);
                    length = copy(Long.parseLong(lower.substring(at + 17, end).trim()), sha, buf);
                }
            }
            Request r = new Request(head, length, HexFormat.of().formatHex(sha.digest()));
            requests.add(r);
            return r;
        }

        private long copy(long n, MessageDigest sha, byte[] buf) throws IOException {
            long left = n;
            while (left > 0) {
                int got = in.read(buf, 0, (int) Math.min(buf.length, left));
                if (got < 0) {
                    throw new IOException("end of stream inside a body");
                }
                sha.update(buf, 0, got);
                left -= got;
            }
            return n;
        }

        String readHead() throws IOException {
            ByteArrayOutputStream h = new ByteArrayOutputStream();
            int b;
            while ((b = in.read()) >= 0) {
                h.write(b);
                byte[] a = h.toByteArray();
                int n = a.length;
                if (n >= 4 && a[n - 4] == '\r' && a[n - 3] == '\n' && a[n - 2] == '\r' && a[n - 1] == '\n') {
                    return h.toString(StandardCharsets.ISO_8859_1);
                }
            }
            return null;
        }

        private String readLine() throws IOException {
            StringBuilder s = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0 && b != '\n') {
                if (b != '\r') {
                    s.append((char) b);
                }
            }
            return s.toString();
        }

        void write(String text) throws IOException {
            write(text.getBytes(StandardCharsets.ISO_8859_1));
        }

        void write(byte[] data) throws IOException {
            out.write(data);
            out.flush();
        }

        /** Closes with an RST instead of a FIN. */
        void reset() throws IOException {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            channel.close();
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
