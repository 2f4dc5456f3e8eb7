package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@code proxy-max-header-size} and {@code proxy-max-header-count}: per upstream, defaulted, and validated. */
class UpstreamHeadLimitsConfigTest {

    private static PorticoConfig parse(String upstreamKeys) throws InvalidConfigException {
        return ConfigLoader.parse("portico {\n listen = [\"127.0.0.1:0\"]\n"
                + " upstreams { app { servers = [\"127.0.0.1:1\"]" + upstreamKeys + " } }\n"
                + " locations = [ { path = \"/\", proxy = app } ]\n}", "test.conf", Path.of("."));
    }

    @Test
    void defaultTo16KiBAnd100Fields() throws Exception {
        UpstreamConfig u = parse("").upstreams().get("app");
        assertThat(u.proxyMaxHeaderSize()).isEqualTo(16 * 1024);
        assertThat(u.proxyMaxHeaderCount()).isEqualTo(100);
    }

    @Test
    void areSetPerUpstream() throws Exception {
        UpstreamConfig u =
                parse(", proxy-max-header-size = 32k, proxy-max-header-count = 50").upstreams().get("app");
        assertThat(u.proxyMaxHeaderSize()).isEqualTo(32 * 1024);
        assertThat(u.proxyMaxHeaderCount()).isEqualTo(50);
    }

    @Test
    void zeroIsRefusedWithFileLineAndKey() {
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> parse("\n proxy-max-header-size = 0\n proxy-max-header-count = 0"));
        assertThat(e).isNotNull();
        assertThat(e.problems().stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")))
                .isEqualTo("test.conf:4: portico.upstreams.app.proxy-max-header-size: 0 bytes is out of range"
                        + " (expected: >= 1 bytes)\n"
                        + "test.conf:5: portico.upstreams.app.proxy-max-header-count: 0 is out of range (expected: >= 1)");
    }
}
