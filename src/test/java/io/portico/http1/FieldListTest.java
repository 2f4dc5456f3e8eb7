package io.portico.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** FieldList keeps DefaultHttpHeaders' semantics: order, letter case, set and remove, validation. */
class FieldListTest {
    private static HttpHeaders fields() {
        return FieldList.factory(DefaultHttpHeadersFactory.headersFactory()).newHeaders();
    }

    private static List<String> lines(HttpHeaders h) {
        List<String> lines = new ArrayList<>();
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            lines.add(e.getKey() + ": " + e.getValue());
        }
        return lines;
    }

    @Test
    void namesCompareWithoutLetterCaseAndKeepTheirSpelling() {
        HttpHeaders h = fields();
        h.add(new AsciiString("Content-Type"), "text/plain").add("X-One", "1").add("x-one", "2");
        assertThat(h.get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo("text/plain");
        assertThat(h.getAll("X-ONE")).containsExactly("1", "2");
        assertThat(h.contains("content-type")).isTrue();
        assertThat(h.contains(HttpHeaderNames.CONTENT_LENGTH)).isFalse();
        assertThat(h.getAll(HttpHeaderNames.CONTENT_LENGTH)).isEmpty();
        assertThat(lines(h)).containsExactly("Content-Type: text/plain", "X-One: 1", "x-one: 2");
        assertThat(h.size()).isEqualTo(3);
    }

    @Test
    void setReplacesEveryFieldOfTheNameAtTheEndAndRemoveKeepsTheOthersInOrder() {
        HttpHeaders h = fields();
        h.add("A", "1").add("B", "2").add("a", "3").add("C", "4");
        h.set("A", "5");
        assertThat(lines(h)).containsExactly("B: 2", "C: 4", "A: 5");
        h.add("D", "6").remove("c");
        assertThat(lines(h)).containsExactly("B: 2", "A: 5", "D: 6");
        h.setInt("B", 7);
        assertThat(h.getInt("b")).isEqualTo(7);
        assertThat(lines(h)).containsExactly("A: 5", "D: 6", "B: 7");
        assertThat(h.copy().names()).containsExactly("A", "D", "B");
        h.clear();
        assertThat(h.isEmpty()).isTrue();
    }

    @Test
    void valueListsAreSearchedElementByElement() {
        HttpHeaders h = fields();
        h.add("Connection", "keep-alive ,\tUpgrade").add("connection", "x-foo").add("TE", "trailers");
        assertThat(h.containsValue("connection", "upgrade", true)).isTrue();
        assertThat(h.containsValue("connection", "upgrade", false)).isFalse();
        assertThat(h.containsValue("Connection", "x-foo", false)).isTrue();
        assertThat(h.containsValue("Connection", "keep", true)).isFalse();
        assertThat(h.containsValue("Upgrade", "websocket", true)).isFalse();
        assertThat(h.contains("te", "TRAILERS", true)).isTrue();
        assertThat(h.contains("te", "TRAILERS", false)).isFalse();
        List<String> values = new ArrayList<>();
        h.valueStringIterator("CONNECTION").forEachRemaining(values::add);
        assertThat(values).containsExactly("keep-alive ,\tUpgrade", "x-foo");
        assertThat(h.valueCharSequenceIterator("Via").hasNext()).isFalse();
    }

    @Test
    void growsPastItsFirstArray() {
        HttpHeaders h = fields();
        for (int i = 0; i < 40; i++) {
            h.add("F" + i, Integer.toString(i));
        }
        assertThat(h.size()).isEqualTo(40);
        assertThat(h.get("f39")).isEqualTo("39");
        assertThat(lines(h).get(0)).isEqualTo("F0: 0");
    }

    @Test
    void validatesNamesAndValuesAsNettysDefaultHeadersDo() {
        HttpHeaders h = fields();
        assertThatThrownBy(() -> h.add("Bad Name", "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> h.add("X", "a\r\nInjected: 1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> h.set("X", "\u0000")).isInstanceOf(IllegalArgumentException.class);
        assertThat(h.isEmpty()).isTrue();
    }
}
