package io.portico.ratelimit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * One Redis command over a fresh loopback socket, for the test fixtures: the reply as text (an array's elements
 * one per line, an error as {@code -ERR ...}). Not a client: no pipelining, no TLS.
 */
final class Resp {
    private Resp() {}

    static String command(int port, String... args) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(5000);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                out.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            OutputStream o = s.getOutputStream();
            o.write(out.toByteArray());
            o.flush();
            StringBuilder reply = new StringBuilder();
            read(new BufferedInputStream(s.getInputStream()), reply);
            return reply.toString();
        }
    }

    private static void read(InputStream in, StringBuilder reply) throws IOException {
        String line = line(in);
        switch (line.charAt(0)) {
            case '+', ':' -> reply.append(line.substring(1));
            case '-' -> reply.append(line);
            case '$' -> {
                int length = Integer.parseInt(line.substring(1));
                if (length >= 0) {
                    reply.append(new String(in.readNBytes(length), StandardCharsets.UTF_8));
                    in.readNBytes(2);
                }
            }
            case '*' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        reply.append('\n');
                    }
                    read(in, reply);
                }
            }
            default -> throw new IOException("not a RESP reply: " + line);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.append((char) c);
        }
        in.read();
        return b.toString();
    }
}
