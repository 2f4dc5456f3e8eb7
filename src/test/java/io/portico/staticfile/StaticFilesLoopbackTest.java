package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.StaticConfig;
import io.portico.config.TargetConfig;
import io.portico.route.Route;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The responder behind a real HttpServerCodec on a loopback socket: sendfile, cached bytes, keep-alive. */
class StaticFilesLoopbackTest {
    @TempDir
    Path site;

    StaticFiles files;
    LoopbackServer server;
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    byte[] big = new byte[1 << 20];

    @BeforeEach
    void start() throws IOException, InterruptedException {
        new Random(7).nextBytes(big);
        Files.write(site.resolve("big.bin"), big);
        Files.writeString(site.resolve("small.txt"), "small file");
        StaticConfig config = new StaticConfig(64 << 20, 256 << 10, Duration.ofSeconds(1),
                StaticConfig.FollowSymlinks.INSIDE_ROOT, Map.of());
        TargetConfig.Static target = new TargetConfig.Static(site, true, List.of("index.html"), List.of(), false,
                Optional.empty(), Optional.empty(), false, false);
        files = StaticFiles.create(config);
        var location = Harness.location("/static/", target);
        server = new LoopbackServer(0, new Route(location, files.responder(location, target, name -> null)));
    }

    @AfterEach
    void stop() {
        server.close();
        files.close();
    }

    HttpResponse<byte[]> get(String path, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void servesSmallAndLargeFilesRepeatedlyOnOneConnection() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<byte[]> small = get("/static/small.txt");
            assertThat(small.statusCode()).isEqualTo(200);
            assertThat(new String(small.body())).isEqualTo("small file");
            HttpResponse<byte[]> large = get("/static/big.bin");
            assertThat(large.statusCode()).isEqualTo(200);
            assertThat(large.body()).isEqualTo(big);
            assertThat(large.headers().firstValueAsLong("content-length")).hasValue(big.length);
        }
    }

    @Test
    void rangeOfALargeFileAndNotModified() throws Exception {
        HttpResponse<byte[]> range = get("/static/big.bin", "Range", "bytes=1000-1999");
        assertThat(range.statusCode()).isEqualTo(206);
        assertThat(range.body()).isEqualTo(java.util.Arrays.copyOfRange(big, 1000, 2000));
        String etag = range.headers().firstValue("etag").orElseThrow();
        assertThat(get("/static/big.bin", "If-None-Match", etag).statusCode()).isEqualTo(304);
        assertThat(get("/static/missing").statusCode()).isEqualTo(404);
        assertThat(get("/static/small.txt").body()).hasSize(10);
    }
}
