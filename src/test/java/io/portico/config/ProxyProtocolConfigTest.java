package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A listener's {@code proxy-protocol}, {@code trusted} and {@code proxy-protocol-timeout}, checked at load. */
class ProxyProtocolConfigTest {
    @TempDir
    Path prefix;

    private PorticoConfig parse(String listen) throws InvalidConfigException {
        return ConfigLoader.parse("portico {\nlisten = [" + listen + "]\n}", "x.conf", prefix);
    }

    private String problems(String listen) {
        return catchThrowableOfType(InvalidConfigException.class, () -> parse(listen)).getMessage();
    }

    @Test
    void aProxyProtocolListenerHasItsTrustedPeersAndTimeout() throws Exception {
        PorticoConfig c = parse("{ address = \"0.0.0.0:80\", proxy-protocol = true,"
                + " trusted = [\"10.0.0.0/8\", \"fd00::/8\"] }, \"127.0.0.1:8081\"");
        ProxyProtocolConfig p = c.listen().get(0).proxyProtocol().orElseThrow();
        assertThat(p.trusted()).extracting(Cidr::toString).containsExactly("10.0.0.0/8", "fd00::/8");
        assertThat(p.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.listen().get(1).proxyProtocol()).isEmpty();
        assertThat(ConfigDump.render(c)).contains("proxy-protocol = true", "trusted = [\"10.0.0.0/8\", \"fd00::/8\"]",
                "proxy-protocol-timeout = 5s");
    }

    @Test
    void theTimeoutIsAKey() throws Exception {
        PorticoConfig c = parse("{ address = \"0.0.0.0:80\", proxy-protocol = true, trusted = [\"10.0.0.1\"],"
                + " proxy-protocol-timeout = 2s }");
        assertThat(c.listen().get(0).proxyProtocol().orElseThrow().timeout()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void proxyProtocolWithoutTrustedIsRefused() {
        assertThat(problems("{ address = \"0.0.0.0:80\", proxy-protocol = true }"))
                .contains("x.conf:2: portico.listen.0.proxy-protocol: true without trusted: any client could name any"
                        + " address in a PROXY header (expected: trusted = the balancers' CIDRs, e.g. [\"10.0.0.0/8\"],"
                        + " or [\"0.0.0.0/0\", \"::/0\"] to take it from anyone, as nginx does)");
    }

    @Test
    void aBadCidrNamesItsFileAndLine() {
        assertThat(problems("\n{ address = \"0.0.0.0:80\", proxy-protocol = true,\n trusted = [\"10.0.0.0/33\"] }"))
                .contains("x.conf:4: portico.listen.0.trusted: prefix length must be 0..32 in 10.0.0.0/33 (expected: a CIDR");
        assertThat(problems("{ address = \"0.0.0.0:80\", proxy-protocol = true, trusted = [\"lb.internal\"] }"))
                .contains("x.conf:2: portico.listen.0.trusted: not an IP address: lb.internal");
    }

    @Test
    void trustedWithoutProxyProtocolIsRefused() {
        assertThat(problems("{ address = \"0.0.0.0:80\", trusted = [\"10.0.0.0/8\"] }"))
                .contains("x.conf:2: portico.listen.0.trusted: applies only with proxy-protocol = true");
    }

    @Test
    void aBareTimeoutIsRefused() {
        assertThat(problems("{ address = \"0.0.0.0:80\", proxy-protocol = true, trusted = [\"10.0.0.0/8\"],"
                + " proxy-protocol-timeout = 5 }")).contains("listen.0.proxy-protocol-timeout: '5' has no unit");
    }
}
