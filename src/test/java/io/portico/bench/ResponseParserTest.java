package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResponseParserTest {

    private static final String CHUNKED = "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n10\r\n0123456789abcdef\r\n0\r\nX-Trailer: 1\r\n\r\n";

    /** What parsing {@code text} came to: status, body bytes, keep-alive, and the bytes left after the response. */
    private record Parsed(boolean complete, int status, long body, boolean keepAlive, String rest) {
    }

    private static Parsed parse(String text, boolean head) throws MalformedResponseException {
        ResponseParser p = new ResponseParser();
        p.reset(head);
        ByteBuf in = Unpooled.copiedBuffer(text, StandardCharsets.ISO_8859_1);
        try {
            boolean done = p.parse(in);
            return new Parsed(done, p.status(), p.bodyBytes(), p.keepAlive(), in.toString(StandardCharsets.ISO_8859_1));
        } finally {
            in.release();
        }
    }

    /** Feeds {@code text} cut at {@code cut}, keeping unread bytes for the next read the way VirtualClient does. */
    private static Parsed parseSplit(String text, int cut) throws MalformedResponseException {
        ResponseParser p = new ResponseParser();
        p.reset(false);
        ByteBuf pending = Unpooled.buffer();
        try {
            boolean done = false;
            for (String part : new String[] {text.substring(0, cut), text.substring(cut)}) {
                pending.writeCharSequence(part, StandardCharsets.ISO_8859_1);
                done = p.parse(pending);
                pending.discardReadBytes();
            }
            return new Parsed(done, p.status(), p.bodyBytes(), p.keepAlive(),
                    pending.toString(StandardCharsets.ISO_8859_1));
        } finally {
            pending.release();
        }
    }

    @Test
    void contentLengthBodyIsCountedAndTheNextResponseLeftUnread() throws Exception {
        Parsed r = parse("HTTP/1.1 404 Not Found\r\nServer: x\r\ncontent-length:  3 \r\n\r\nabcHTTP/1.1", false);
        assertThat(r).isEqualTo(new Parsed(true, 404, 3, true, "HTTP/1.1"));
    }

    @Test
    void chunkedBodyCountsChunkDataOnlyThroughExtensionsAndTrailers() throws Exception {
        assertThat(parse(CHUNKED, false)).isEqualTo(new Parsed(true, 200, 21, true, ""));
    }

    @Test
    void everyCutPointGivesTheSameAnswer() throws Exception {
        for (int cut = 0; cut <= CHUNKED.length(); cut++) {
            assertThat(parseSplit(CHUNKED, cut)).as("cut at %d", cut).isEqualTo(new Parsed(true, 200, 21, true, ""));
        }
    }

    @Test
    void headersOnlyResponsesHaveNoBodyWhateverContentLengthSays() throws Exception {
        assertThat(parse("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n", true))
                .isEqualTo(new Parsed(true, 200, 0, true, ""));
        assertThat(parse("HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n", false).complete()).isTrue();
        assertThat(parse("HTTP/1.1 204 No Content\r\n\r\n", false).complete()).isTrue();
    }

    @Test
    void interimResponsesAreSkippedForTheFinalOne() throws Exception {
        assertThat(parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", false))
                .isEqualTo(new Parsed(true, 201, 2, true, ""));
    }

    @Test
    void keepAliveFollowsVersionAndConnectionTokens() throws Exception {
        assertThat(parse("HTTP/1.1 200 OK\r\nConnection: Upgrade, close\r\nContent-Length: 0\r\n\r\n", false)
                .keepAlive()).isFalse();
        assertThat(parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false).keepAlive()).isFalse();
        assertThat(parse("HTTP/1.0 200 OK\r\nconnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", false).keepAlive())
                .isTrue();
    }

    @Test
    void aBodyWithoutFramingLastsUntilTheConnectionCloses() throws Exception {
        ResponseParser p = new ResponseParser();
        p.reset(false);
        ByteBuf in = Unpooled.copiedBuffer("HTTP/1.0 200 OK\r\n\r\nsome body", StandardCharsets.ISO_8859_1);
        assertThat(p.parse(in)).isFalse();
        in.release();
        assertThat(p.closeCompletes()).isTrue();
        assertThat(p.bodyBytes()).isEqualTo(9);
        assertThat(p.keepAlive()).isFalse();
    }

    @Test
    void anIncompleteResponseIsNotCompleteAndACloseDoesNotCompleteIt() throws Exception {
        ResponseParser p = new ResponseParser();
        p.reset(false);
        ByteBuf in = Unpooled.copiedBuffer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
                StandardCharsets.US_ASCII);
        assertThat(p.parse(in)).isFalse();
        in.release();
        assertThat(p.closeCompletes()).isFalse();
    }

    @Test
    void garbageAndOversizedLinesAreMalformed() {
        assertThatThrownBy(() -> parse("SSH-2.0-OpenSSH\r\n", false)).isInstanceOf(MalformedResponseException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 2x0 OK\r\n", false)).isInstanceOf(MalformedResponseException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false))
                .isInstanceOf(MalformedResponseException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false))
                .isInstanceOf(MalformedResponseException.class);
        assertThatThrownBy(() -> parse("HTTP/1.1 200 OK\r\nX: " + "a".repeat(ResponseParser.MAX_LINE), false))
                .isInstanceOf(MalformedResponseException.class).hasMessageContaining("longer than");
    }
}
