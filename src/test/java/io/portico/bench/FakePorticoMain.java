package io.portico.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A stand-in for {@code io.portico.cli.Main demo-app|serve} to try the built-in scenarios before the real commands
 * exist: {@code java -Dportico.bench.main=io.portico.bench.FakePorticoMain ... bench compare}. Both answer
 * directly (no proxying): this exercises the scenario runner, not Portico.
 */
public final class FakePorticoMain {

    private FakePorticoMain() {
    }

    public static void main(String[] args) throws Exception {
        int port;
        if (args[0].equals("demo-app")) {
            port = Integer.parseInt(args[2].substring(args[2].lastIndexOf(':') + 1));
        } else {
            Matcher m = Pattern.compile("listen = \\[\"127.0.0.1:(\\d+)\"]")
                    .matcher(Files.readString(Path.of(args[2])));
            if (!m.find()) {
                throw new IllegalArgumentException("no listen address in " + args[2]);
            }
            port = Integer.parseInt(m.group(1));
        }
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 1024);
        server.setExecutor(Executors.newFixedThreadPool(256));
        server.createContext("/", FakePorticoMain::answer);
        server.start();
    }

    private static void answer(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        String query = exchange.getRequestURI().getQuery();
        byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
        if (path.endsWith("/x")) {
            body = new byte[4096];
        } else if (path.equals("/block") && query != null && query.startsWith("ms=")) {
            try {
                Thread.sleep(Long.parseLong(query.substring(3)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
        exchange.close();
    }
}
