package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class RequestTemplateTest {

    private static BenchOptions options(boolean keepAlive) {
        return new BenchOptions(List.of(RequestTarget.of("http://127.0.0.1:8080/a?b=1", "GET", null)), 1, 1, 0, null,
                keepAlive, List.of(new AbstractMap.SimpleImmutableEntry<>("X-Test", "1")), Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, List.of(), 1);
    }

    @Test
    void preEncodesTheRequestOnceWithHostHeadersAndBody() {
        RequestTarget post = RequestTarget.of("127.0.0.1:8080/form", "POST", "a=1".getBytes(StandardCharsets.UTF_8));
        RequestTemplate t = new RequestTemplate(post, new InetSocketAddress("127.0.0.1", 8080), options(false));
        ByteBuf first = t.newView();
        ByteBuf second = t.newView();
        String text = first.toString(StandardCharsets.ISO_8859_1);
        assertThat(text).startsWith("POST /form HTTP/1.1\r\n").contains("host: 127.0.0.1:8080\r\n")
                .contains("X-Test: 1\r\n").contains("content-length: 3\r\n").contains("connection: close\r\n")
                .endsWith("\r\n\r\na=1");
        first.skipBytes(first.readableBytes());
        assertThat(second.readableBytes()).as("each send reads its own duplicate").isEqualTo(text.length());
        assertThat(first.release()).as("duplicates are views: releasing one frees nothing").isFalse();
        first.readerIndex(0);
        assertThat(first.toString(StandardCharsets.ISO_8859_1)).as("a rewound view sends the same bytes again")
                .isEqualTo(text);
        assertThat(t.head()).isFalse();
        t.release();
    }

    @Test
    void headIsPreEncodedTooAndItsBodylessResponseIsFramedRight() throws Exception {
        RequestTarget head = RequestTarget.of("http://127.0.0.1:1/", "HEAD", null);
        RequestTemplate t = new RequestTemplate(head, new InetSocketAddress("127.0.0.1", 1), options(true));
        assertThat(t.head()).as("the parser is told that no body follows").isTrue();
        assertThat(t.newView().toString(StandardCharsets.ISO_8859_1)).startsWith("HEAD / HTTP/1.1\r\n")
                .endsWith("\r\n\r\n");
        t.release();
        try (StubServer server = new StubServer(StubServer.Behavior.OK, "body that HEAD must not get", 200, 0)) {
            BenchOptions o = new BenchOptions(List.of(RequestTarget.of(server.url("/"), "HEAD", null)), 1, 6, 0,
                    null, true, List.of(), Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(2), 0, List.of(),
                    1);
            BenchResult r = Runs.run(o);
            assertThat(r.tally().successes()).isEqualTo(6);
            assertThat(r.tally().bytes()).isZero();
            assertThat(r.tally().connections()).as("keep-alive kept one connection").isEqualTo(1);
        }
    }
}
