package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nginx's {@code try_files $uri =404}: a last {@code =CODE} answers when no earlier entry exists. */
class TryFilesStatusTest {
    @TempDir
    Path site;

    PorticoServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void theStatusAnswersWhenNoEntryExists() throws Exception {
        Files.writeString(site.resolve("here.txt"), "here");
        Files.createDirectories(site.resolve("docs"));
        Files.writeString(site.resolve("docs/index.html"), "<p>docs</p>");
        Files.writeString(site.resolve(".env"), "SECRET");
        server = TestServers.start("""
                locations = [
                  { path = "/", root = "%1$s/", try-files = ["$uri", "$uri/index.html", "=403"] }
                  { path = "/plain/", alias = "%1$s/", try-files = ["$uri", "=404"] }
                ]
                """.formatted(site.toString().replace("\\", "/")));
        int port = TestServers.port(server);
        try (RawHttp c = new RawHttp(port)) {
            assertThat(get(c, "/here.txt").text()).isEqualTo("here");
            assertThat(get(c, "/docs/").text()).isEqualTo("<p>docs</p>");
            Response missing = get(c, "/missing.txt");
            assertThat(missing.status()).isEqualTo(403);
            assertThat(missing.text()).contains("403");
            assertThat(get(c, "/.env").status()).as("hidden, not missing: as without try-files").isEqualTo(404);
            assertThat(get(c, "/plain/here.txt").text()).isEqualTo("here");
            assertThat(get(c, "/plain/missing.txt").status()).isEqualTo(404);
        }
    }

    @Test
    void checkRefusesACodeThatIsNotLastOrNotAnError() {
        assertThatThrownBy(() -> TestServers.config("""
                locations = [{ path = "/", root = "static/", try-files = ["=404", "$uri"] }]""", Path.of(".")))
                .hasMessageContaining("try-files: '=404' must come last (expected: =CODE as the final entry)");
        assertThatThrownBy(() -> TestServers.config("""
                locations = [{ path = "/", root = "static/", try-files = ["$uri", "=200"] }]""", Path.of(".")))
                .hasMessageContaining("try-files: '=200' is not an error status (expected: =400 to =599, e.g. =404)");
        assertThatThrownBy(() -> TestServers.config("""
                locations = [{ path = "/", root = "static/", try-files = ["$uri", "=nope"] }]""", Path.of(".")))
                .hasMessageContaining("try-files: '=nope' is not an error status");
    }

    private static Response get(RawHttp c, String path) throws Exception {
        c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
        return c.read();
    }
}
