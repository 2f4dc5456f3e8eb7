package io.portico.hardening;

import io.netty.util.internal.PlatformDependent;
import io.portico.server.PorticoServer;
import io.portico.testing.TestServers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A measurement, not a test: what N idle keep-alive connections cost Portico. The server runs in this JVM; a
 * second JVM (this class with {@code client PORT N}) opens N connections from source addresses spread over
 * 127.0.0.2-127.0.0.11 (no ephemeral-port exhaustion), makes one request on each and keeps them open. Heap
 * (after GC), Netty's direct memory and the process RSS are read before and after.
 *
 * <pre>java -cp target/classes:target/test-classes:$(deps) io.portico.hardening.IdleConnectionsMemory 10000</pre>
 */
public final class IdleConnectionsMemory {
    private IdleConnectionsMemory() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("client")) {
            client(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            return;
        }
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        PorticoServer server = TestServers.start("limits { max-connections = 50000, keepalive-timeout = 10m,"
                + " client-header-timeout = 10m }\n"
                + "locations = [ { path = \"/\", return = { status = 200, body = \"ok\" } } ]");
        int port = TestServers.port(server);
        runClient(port, 200); // warm-up: classes loaded, allocator arenas created, JIT
        Sample before = Sample.take();
        Process client = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), IdleConnectionsMemory.class.getName(),
                "client", "" + port, "" + n)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"ready".equals(line)) {
            throw new IllegalStateException("client: " + line);
        }
        Sample after = Sample.take();
        client.destroy();
        server.stop();
        System.out.printf("%d idle keep-alive connections%n", n);
        System.out.printf("heap     %,12d -> %,12d bytes: %,8.0f B/connection%n", before.heap, after.heap,
                (after.heap - before.heap) / (double) n);
        System.out.printf("direct   %,12d -> %,12d bytes: %,8.0f B/connection%n", before.direct, after.direct,
                (after.direct - before.direct) / (double) n);
        System.out.printf("rss      %,12d -> %,12d bytes: %,8.0f B/connection%n", before.rss, after.rss,
                (after.rss - before.rss) / (double) n);
        System.out.printf("heap+direct: %,.0f B/connection%n",
                (after.heap - before.heap + after.direct - before.direct) / (double) n);
        System.exit(0);
    }

    private static void runClient(int port, int n) throws IOException {
        List<Socket> sockets = open(port, n);
        for (Socket s : sockets) {
            s.close();
        }
    }

    private static void client(int port, int n) throws IOException {
        List<Socket> sockets = open(port, n);
        System.out.println("ready");
        System.out.flush();
        System.in.read(); // until the parent destroys us
        sockets.size();
    }

    private static List<Socket> open(int port, int n) throws IOException {
        List<Socket> sockets = new ArrayList<>(n);
        byte[] request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < n; i++) {
            Socket s = new Socket();
            s.bind(new InetSocketAddress("127.0.0." + (2 + i % 10), 0));
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request);
            sockets.add(s);
        }
        for (Socket s : sockets) { // every connection had its response: it is now an idle keep-alive connection
            InputStream in = s.getInputStream();
            byte[] head = new byte[4096];
            int got = 0;
            while (got < 2 || head[got - 2] != 'o' || head[got - 1] != 'k') {
                int r = in.read(head, got, head.length - got);
                if (r < 0) {
                    throw new IOException("closed");
                }
                got += r;
            }
        }
        return sockets;
    }

    private record Sample(long heap, long direct, long rss) {
        static Sample take() throws IOException {
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            long rss = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                    .mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")) * 1024).findFirst().orElse(-1);
            return new Sample(heap, PlatformDependent.usedDirectMemory(), rss);
        }
    }
}
