package io.portico.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoEndpointsTest {

    @TempDir
    Path dir;

    private DemoEndpoints endpoints;

    @BeforeEach
    void setUp() throws IOException {
        Path root = Files.createDirectories(dir.resolve("site"));
        Files.writeString(root.resolve("index.html"), "<p>home</p>");
        endpoints = new DemoEndpoints(new DemoFiles(root));
    }

    /** Status, content type and body of one request, with both messages released. */
    private record Answer(int status, String type, String allow, String body) {}

    private Answer call(HttpMethod method, String uri, String body, String contentType) throws InterruptedException {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        if (contentType != null) {
            request.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        FullHttpResponse response;
        try {
            response = endpoints.respond(request);
        } finally {
            request.release();
        }
        try {
            assertThat(response.headers().getInt(HttpHeaderNames.CONTENT_LENGTH))
                    .isEqualTo(response.content().readableBytes());
            return new Answer(response.status().code(), response.headers().get(HttpHeaderNames.CONTENT_TYPE),
                    response.headers().get(HttpHeaderNames.ALLOW), response.content().toString(StandardCharsets.UTF_8));
        } finally {
            response.release();
        }
    }

    private Answer get(String uri) throws InterruptedException {
        return call(HttpMethod.GET, uri, "", null);
    }

    @Test
    void rootSaysHelloInPlainText() throws InterruptedException {
        assertThat(get("/")).isEqualTo(new Answer(200, DemoResponses.TEXT, null, "Hello, World!"));
    }

    @Test
    void helloEscapesTheDecodedName() throws InterruptedException {
        Answer answer = get("/hello/%3Cb%3E%26Jo+%22x%27");
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.type()).isEqualTo(DemoResponses.HTML);
        assertThat(answer.body()).contains("<h1>Hello &lt;b&gt;&amp;Jo+&#34;x&#39;!</h1>").doesNotContain("<b>");
        assertThat(get("/hello/").body()).contains("<h1>Hello, World!</h1>");
        assertThat(get("/hello/a/b").status()).isEqualTo(404);
    }

    @Test
    void blockSleepsAndRefusesNonsense() throws InterruptedException {
        assertThat(get("/block?ms=0")).isEqualTo(new Answer(200, DemoResponses.TEXT, null, "i slept 0 ms\n"));
        assertThat(get("/block?ms=soon").status()).isEqualTo(400);
        assertThat(get("/block?ms=-1").status()).isEqualTo(400);
    }

    @Test
    void echoReturnsTheBodyWithItsContentType() throws InterruptedException {
        assertThat(call(HttpMethod.POST, "/echo", "{\"a\":1}", "application/json"))
                .isEqualTo(new Answer(200, "application/json", null, "{\"a\":1}"));
        assertThat(call(HttpMethod.PUT, "/echo", "raw", null).type()).isEqualTo("application/octet-stream");
    }

    @Test
    void filesServesFromTheRootOnly() throws InterruptedException, IOException {
        Files.writeString(dir.resolve("secret.txt"), "secret");
        assertThat(get("/files/index.html")).isEqualTo(new Answer(200, DemoResponses.HTML, null, "<p>home</p>"));
        assertThat(get("/files/missing.txt").status()).isEqualTo(404);
        assertThat(get("/files/../secret.txt").status()).isEqualTo(404);
        assertThat(get("/files/%2e%2e/secret.txt").status()).isEqualTo(404);
    }

    @Test
    void healthAndBig() throws InterruptedException {
        assertThat(get("/health")).isEqualTo(new Answer(200, DemoResponses.TEXT, null, "ok"));
        Answer big = get("/big?kb=3");
        assertThat(big.body()).hasSize(3 * 1024).matches("x+");
        assertThat(get("/big").body()).hasSize(1024);
        assertThat(get("/big?kb=" + (DemoEndpoints.MAX_BIG_KB + 1)).status()).isEqualTo(400);
    }

    @Test
    void unknownPathsAre404AndWrongMethods405() throws InterruptedException {
        assertThat(get("/nope").status()).isEqualTo(404);
        assertThat(get("/echo")).extracting(Answer::status, Answer::allow).containsExactly(405, "POST, PUT");
        assertThat(call(HttpMethod.DELETE, "/", "", null))
                .extracting(Answer::status, Answer::allow)
                .containsExactly(405, "GET, HEAD");
        assertThat(call(HttpMethod.POST, "/files/index.html", "x", null).status()).isEqualTo(405);
    }
}
