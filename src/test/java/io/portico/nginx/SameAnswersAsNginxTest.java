package io.portico.nginx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof of the translation: nginx runs the nginx file and Portico the imported one, on loopback, and the
 * same requests (static, proxied, limited, redirected, denied, fixed answers, try_files) get the same status,
 * the same Location and, for successful answers, the same body from both. Needs an nginx binary (Debian's
 * nginx-light); without one the test is skipped.
 */
class SameAnswersAsNginxTest {
    private static final Path NGINX = Path.of("/usr/sbin/nginx");

    /** Skipped without nginx, except where PORTICO_REQUIRE_NGINX is set (CI installs nginx-light): then it fails. */
    private static void requireNginx() {
        if (System.getenv("PORTICO_REQUIRE_NGINX") != null) {
            org.assertj.core.api.Assertions.assertThat(NGINX).as("nginx is required here").isExecutable();
        }
        Assumptions.assumeTrue(Files.isExecutable(NGINX), "no nginx binary at " + NGINX);
    }

    @TempDir
    Path dir;

    private Process nginx;
    private PorticoServer portico;
    private HttpServer app;

    @AfterEach
    void stop() throws Exception {
        if (nginx != null) {
            nginx.destroy();
            nginx.waitFor();
        }
        if (portico != null) {
            portico.close();
        }
        if (app != null) {
            app.stop(0);
        }
    }

    @Test
    void nginxAndTheImportedPorticoAnswerAlike() throws Exception {
        requireNginx();
        app = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        app.createContext("/", x -> {
            byte[] body = ("app " + x.getRequestURI()).getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(200, body.length);
            x.getResponseBody().write(body);
            x.close();
        });
        app.start();
        Path site = Files.createDirectories(dir.resolve("site"));
        Files.writeString(site.resolve("a.txt"), "hello static\n");
        Files.createDirectories(dir.resolve("logs"));
        Files.createDirectories(dir.resolve("tmp"));
        int port = freePort();
        String conf = "worker_processes 1;\nevents { worker_connections 64; }\nhttp {\n"
                + "  access_log off;\n  client_body_temp_path " + dir.resolve("tmp") + ";\n"
                + "  proxy_temp_path " + dir.resolve("tmp") + ";\n"
                + "  limit_req_zone $binary_remote_addr zone=one:1m rate=1r/m;\n"
                + "  upstream app { server 127.0.0.1:" + app.getAddress().getPort() + "; }\n"
                + "  server {\n    listen 127.0.0.1:" + port + ";\n    root " + site + ";\n"
                + "    location /static/ { alias " + site + "/; }\n"
                + "    location /app/ { proxy_pass http://app/; proxy_set_header Host $host; }\n"
                + "    location = /old { return 301 https://$host$request_uri; }\n"
                + "    location /admin/ { deny all; }\n"
                + "    location = /health { return 200 \"ok\"; }\n"
                + "    location /limited/ { limit_req zone=one; alias " + site + "/; }\n"
                + "    location /files/ { try_files $uri =404; }\n"
                + "    location ~ \\.secret$ { return 403; }\n  }\n}\n";
        Path file = dir.resolve("nginx.conf");
        Files.writeString(file, conf);
        NginxImport.Result imported = NginxImport.translate(file);
        assertThat(Imports.unmapped(imported)).isEmpty();
        Files.createDirectories(site.resolve("files"));
        Files.writeString(site.resolve("files/b.txt"), "b\n");

        nginx = new ProcessBuilder(NGINX.toString(), "-p", dir.toString(), "-c", file.toString(), "-g",
                "daemon off; master_process off; pid " + dir.resolve("nginx.pid") + "; error_log "
                        + dir.resolve("logs/error.log") + ";")
                .redirectErrorStream(true).redirectOutput(dir.resolve("logs/nginx.out").toFile()).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> accepts(port) || !nginx.isAlive());
        assertThat(nginx.isAlive()).as("nginx started: " + Files.readString(dir.resolve("logs/nginx.out"))).isTrue();

        PorticoConfig config = ConfigLoader.parse(imported.hocon().replace("\"127.0.0.1:" + port + "\"",
                "\"127.0.0.1:0\""), dir.resolve("portico.conf").toString(), dir);
        portico = PorticoServer.start(config);
        int porticoPort = portico.localAddresses().get(0).getPort();

        List<String> paths = List.of("/static/a.txt", "/static/missing.txt", "/app/hello?x=1", "/old?a=b",
                "/admin/", "/health", "/limited/a.txt", "/limited/a.txt", "/files/b.txt", "/files/nope",
                "/x/y.secret", "/a.txt", "/nothing");
        List<String> fromNginx = answers(port, paths);
        List<String> fromPortico = answers(porticoPort, paths);
        assertThat(fromPortico).isEqualTo(fromNginx);
        assertThat(fromNginx).contains("/limited/a.txt 503", "/old?a=b 301 https://127.0.0.1/old?a=b",
                "/app/hello?x=1 200 app /hello?x=1", "/admin/ 403");
    }

    /**
     * nginx's usual pair, a port that redirects example.test to https beside the port that serves it, with a
     * second name only on the serving port: the imported hosts have their own listen, and every (port, Host) of
     * a name a server there has gets nginx's answer; so does a name no server on the redirect port has (nginx's
     * default there is the redirect: the imported redirect host says default = true on that listener).
     * Portico listens on other free ports, the same in every address of the file.
     */
    @Test
    void serversOnTheirOwnPortsAnswerAlikeByAddressThenName() throws Exception {
        requireNginx();
        Path site = Files.createDirectories(dir.resolve("site"));
        Files.writeString(site.resolve("a.txt"), "hello static\n");
        Files.createDirectories(dir.resolve("logs"));
        Files.createDirectories(dir.resolve("tmp"));
        int redirectPort = freePort();
        int sitePort = freePort();
        String conf = "worker_processes 1;\nevents { worker_connections 64; }\nhttp {\n"
                + "  access_log off;\n  client_body_temp_path " + dir.resolve("tmp") + ";\n"
                + "  proxy_temp_path " + dir.resolve("tmp") + ";\n"
                + "  server { listen 127.0.0.1:" + redirectPort + "; server_name example.test;"
                + " return 301 https://$host$request_uri; }\n"
                + "  server { listen 127.0.0.1:" + sitePort + "; server_name example.test; root " + site + "; }\n"
                + "  server { listen 127.0.0.1:" + sitePort + "; server_name other.test;"
                + " location / { return 200 \"other\"; } }\n}\n";
        Path file = dir.resolve("nginx.conf");
        Files.writeString(file, conf);
        NginxImport.Result imported = NginxImport.translate(file);
        assertThat(Imports.unmapped(imported)).isEmpty();
        startNginx(file, sitePort);
        int porticoRedirect = freePort();
        int porticoSite = freePort();
        PorticoConfig config = ConfigLoader.parse(imported.hocon()
                .replace("127.0.0.1:" + redirectPort + "\"", "127.0.0.1:" + porticoRedirect + "\"")
                .replace("127.0.0.1:" + sitePort + "\"", "127.0.0.1:" + porticoSite + "\""),
                dir.resolve("portico.conf").toString(), dir);
        assertThat(config.hosts()).as(imported.hocon()).hasSize(2);
        portico = PorticoServer.start(config);
        List<String> requests = List.of("example.test /a.txt?x=1", "other.test /a.txt");
        assertThat(hostAnswers(porticoRedirect, requests)).isEqualTo(hostAnswers(redirectPort, requests))
                .as("other.test: no server on the redirect port has it, so nginx's default there answers")
                .containsExactly("example.test /a.txt?x=1 301 https://example.test/a.txt?x=1",
                        "other.test /a.txt 301 https://other.test/a.txt");
        assertThat(hostAnswers(porticoSite, requests)).isEqualTo(hostAnswers(sitePort, requests))
                .containsExactly("example.test /a.txt?x=1 200 hello static\n", "other.test /a.txt 200 other");
    }

    private void startNginx(Path file, int port) throws Exception {
        nginx = new ProcessBuilder(NGINX.toString(), "-p", dir.toString(), "-c", file.toString(), "-g",
                "daemon off; master_process off; pid " + dir.resolve("nginx.pid") + "; error_log "
                        + dir.resolve("logs/error.log") + ";")
                .redirectErrorStream(true).redirectOutput(dir.resolve("logs/nginx.out").toFile()).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> accepts(port) || !nginx.isAlive());
        assertThat(nginx.isAlive()).as("nginx started: " + Files.readString(dir.resolve("logs/nginx.out"))).isTrue();
    }

    /** "HOST PATH" requests, each on its own connection with that Host; "HOST PATH STATUS Location-or-body". */
    private static List<String> hostAnswers(int port, List<String> requests) throws Exception {
        List<String> out = new ArrayList<>();
        for (String q : requests) {
            String[] hp = q.split(" ", 2);
            try (RawHttp c = new RawHttp(port)) {
                Response r = c.send("GET " + hp[1] + " HTTP/1.1\r\nHost: " + hp[0] + "\r\nConnection: close\r\n\r\n")
                        .read();
                out.add(q + " " + r.status() + " " + (r.status() >= 300 && r.status() < 400 ? r.header("Location")
                        : r.text()));
            }
        }
        return out;
    }

    private static List<String> answers(int port, List<String> paths) throws Exception {
        HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        List<String> out = new ArrayList<>();
        for (String p : paths) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + p))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            String line = p + " " + r.statusCode();
            if (r.statusCode() >= 300 && r.statusCode() < 400) {
                line += " " + r.headers().firstValue("Location").orElse("-");
            } else if (r.statusCode() < 300) {
                line += " " + r.body();
            }
            out.add(line);
        }
        return out;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
