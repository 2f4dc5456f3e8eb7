package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MediaTypesTest {
    final MediaTypes types = new MediaTypes(Map.of("webp", "image/x-webp-custom", ".thing", "text/x-thing",
            "data", "application/vnd.example+json"));

    @ParameterizedTest
    @CsvSource({
        "index.html, text/html; charset=utf-8",
        "app.JS, text/javascript; charset=utf-8",
        "data.json, application/json; charset=utf-8",
        "logo.svg, image/svg+xml; charset=utf-8",
        "feed.xml, application/xml; charset=utf-8",
        "style.css, text/css; charset=utf-8",
        "photo.jpeg, image/jpeg",
        "font.woff2, font/woff2",
        "app.wasm, application/wasm",
        "archive.tar.gz, application/gzip",
        "README, application/octet-stream",
        "trailing., application/octet-stream",
        "unknown.qqq, application/octet-stream",
    })
    void builtIn(String name, String type) {
        assertThat(types.of(name)).isEqualTo(type);
    }

    @Test
    void configExtrasOverrideAndGetACharsetWhenTextual() {
        assertThat(types.of("a.webp")).isEqualTo("image/x-webp-custom");
        assertThat(types.of("a.thing")).isEqualTo("text/x-thing; charset=utf-8");
        assertThat(types.of("a.data")).isEqualTo("application/vnd.example+json; charset=utf-8");
        assertThat(MediaTypes.withCharset("text/plain; charset=latin1")).isEqualTo("text/plain; charset=latin1");
    }
}
