package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ContentCodingTest {
    static final boolean[] ALL = {true, true, true};
    static final boolean[] GZIP_ONLY = {false, false, true};

    @ParameterizedTest
    @CsvSource(nullValues = "none", value = {
        "'gzip, deflate, br, zstd', BR",
        "'gzip, deflate', GZIP",
        "'br;q=0.5, gzip;q=0.8', GZIP",
        "'zstd, gzip;q=0.9', ZSTD",
        "'br;q=0, gzip', GZIP",
        "'*', BR",
        "'*;q=0', none",
        "'gzip;q=0', none",
        "'GZIP;Q=0.5', GZIP",
        "'gzip;q=0.000', none",
        "'gzip;q=2, br;q=abc', none",
        "'identity', none",
        "'gzip;q=0.5, identity;q=1', none",
        "'gzip, identity;q=0.5', GZIP",
        "'x-gzip', GZIP",
        "'', none",
        "none, none",
    })
    void choosesTheBestAcceptedVariant(String acceptEncoding, ContentCoding expected) {
        assertThat(ContentCoding.choose(acceptEncoding, ALL)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(nullValues = "none", value = {"'br, zstd', none", "'br, gzip;q=0.1', GZIP", "'*', GZIP"})
    void onlyVariantsThatExist(String acceptEncoding, ContentCoding expected) {
        assertThat(ContentCoding.choose(acceptEncoding, GZIP_ONLY)).isEqualTo(expected);
    }
}
