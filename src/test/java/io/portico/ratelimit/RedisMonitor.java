package io.portico.ratelimit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis's MONITOR on a server, for a test that wants to see when Redis decided: every command the server runs, with
 * the time it ran it (the server's clock, microseconds) and its arguments. Read on a thread of its own until closed.
 */
final class RedisMonitor implements AutoCloseable {
    /** One command: when Redis ran it, in seconds since the epoch (microsecond steps), and its arguments. */
    record Command(double at, List<String> args) {}

    private final Socket socket;
    private final List<Command> commands = new ArrayList<>();
    private final Thread reader;

    RedisMonitor(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
        socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(),
                StandardCharsets.ISO_8859_1));
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            throw new IOException("MONITOR: " + ok);
        }
        reader = new Thread(() -> {
            try {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    Command c = parse(line);
                    if (c != null) {
                        synchronized (commands) {
                            commands.add(c);
                        }
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }, "redis-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    /** The commands seen so far that have {@code text} in one of their arguments. */
    List<Command> with(String text) {
        synchronized (commands) {
            return commands.stream().filter(c -> c.args.stream().anyMatch(a -> a.contains(text))).toList();
        }
    }

    /** {@code +1700000000.123456 [0 127.0.0.1:5000] "evalsha" "..." ...}; null for anything else. */
    static Command parse(String line) {
        int space = line.indexOf(' ');
        int bracket = line.indexOf("] ");
        if (!line.startsWith("+") || space < 0 || bracket < 0) {
            return null;
        }
        double at = Double.parseDouble(line.substring(1, space));
        List<String> args = new ArrayList<>();
        StringBuilder arg = null;
        for (int i = bracket + 2; i < line.length(); i++) {
            char c = line.charAt(i);
            if (arg == null) {
                if (c == '"') {
                    arg = new StringBuilder();
                }
            } else if (c == '\\' && i + 1 < line.length()) {
                arg.append(line.charAt(++i));
            } else if (c == '"') {
                args.add(arg.toString());
                arg = null;
            } else {
                arg.append(c);
            }
        }
        return new Command(at, args);
    }

    @Override
    public void close() throws IOException {
        socket.close();
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
