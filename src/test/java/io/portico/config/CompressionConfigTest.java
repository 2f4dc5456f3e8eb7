package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.portico.config.CompressionConfig.Coding;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A location's compression block: defaults, inheritance from defaults.location, and every refusal's message. */
class CompressionConfigTest {
    @TempDir
    Path prefix;

    private PorticoConfig parse(String body) throws InvalidConfigException {
        return ConfigLoader.parse("portico {\n" + body + "\n}", "c.conf", prefix);
    }

    private List<String> problems(String body) {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class, () -> parse(body));
        assertThat(e).as("must be refused: %s", body).isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    void offByDefaultWithNginxLikeDefaultsOnceEnabled() throws Exception {
        PorticoConfig c = parse("""
                locations = [{ path = "/", return = { status = 200, body = "x" } },
                  { path = "/z/", return = { status = 200, body = "x" }, compression { enabled = true } }]""");
        assertThat(c.locations().get(0).compression().enabled()).isFalse();
        CompressionConfig on = c.locations().get(1).compression();
        assertThat(on.enabled()).isTrue();
        assertThat(on.codings()).containsExactly(Coding.ZSTD, Coding.BR, Coding.GZIP);
        assertThat(on.minLength()).isEqualTo(256);
        assertThat(on.gzipLevel()).isEqualTo(5);
        assertThat(on.compressible("text/html; charset=utf-8")).isTrue();
        assertThat(on.compressible("Application/JSON")).isTrue();
        assertThat(on.compressible("image/png")).isFalse();
        assertThat(on.compressible(null)).isFalse();
    }

    @Test
    void aLocationInheritsDefaultsLocationAndOverridesSomeKeys() throws Exception {
        PorticoConfig c = parse("""
                defaults.location.compression { enabled = true, gzip-level = 7, types = ["text/*"] }
                locations = [{ path = "/", return = { status = 200, body = "x" } },
                  { path = "/b/", return = { status = 200, body = "x" }, compression { codings = [gzip] } }]""");
        CompressionConfig a = c.locations().get(0).compression();
        assertThat(a.enabled()).isTrue();
        assertThat(a.gzipLevel()).isEqualTo(7);
        assertThat(a.compressible("text/anything")).isTrue();
        assertThat(a.compressible("application/json")).isFalse();
        CompressionConfig b = c.locations().get(1).compression();
        assertThat(b.codings()).containsExactly(Coding.GZIP);
        assertThat(b.gzipLevel()).isEqualTo(7);
    }

    @Test
    void badValuesNameTheFileLineAndKey() {
        assertThat(problems("""
                locations = [{ path = "/", return = { status = 200, body = "x" }, compression {
                  enabled = true, codings = [gzip, deflate, gzip], types = ["text/html; charset=utf-8"],
                  gzip-level = 10, brotli-level = 12, zstd-level = 0, min-length = -1, level = 3 } }]""")).containsExactly(
                "c.conf:3: portico.locations.0.compression.codings: 'deflate' (expected: any of zstd, br, gzip)",
                "c.conf:3: portico.locations.0.compression.codings: 'gzip' twice (expected: each coding once)",
                "c.conf:3: portico.locations.0.compression.types: 'text/html; charset=utf-8' (expected: a media"
                        + " type such as text/html or text/*, no parameters)",
                "c.conf:4: portico.locations.0.compression.min-length: '-1': not valid (expected: a size such as"
                        + " 64k, 16m)",
                "c.conf:4: portico.locations.0.compression.gzip-level: 10 is out of range (expected: 1..9)",
                "c.conf:4: portico.locations.0.compression.brotli-level: 12 is out of range (expected: 0..11)",
                "c.conf:4: portico.locations.0.compression.zstd-level: 0 is out of range (expected: 1..22)",
                "c.conf:4: portico.locations.0.compression.level: unknown key");
    }

    @Test
    void enabledWithoutCodingsIsRefused() {
        assertThat(problems("""
                locations = [{ path = "/", return = { status = 200, body = "x" },
                  compression { enabled = true, codings = [] } }]""")).containsExactly(
                "c.conf:3: portico.locations.0.compression.codings: is empty (expected: at least one of zstd, br,"
                        + " gzip, or enabled = false)");
    }
}
