package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ConfigWarningsTest {
    private static PorticoConfig config(String trusted) throws Exception {
        return ConfigLoader.parse("portico { trusted-proxies = " + trusted
                + ", rate-limits { a { rate = 5r/s } }"
                + ", locations = [ { path = \"/\", return = 204, rate-limit = a } ] }",
                "w.conf", Path.of("."));
    }

    @Test
    void oneTrustedProxyIsACorrectConfiguration() throws Exception {
        assertThat(ConfigWarnings.of(config("[\"10.0.0.5\"]"))).isEmpty();
    }

    @Test
    void warnsWhenEveryoneIsTrusted() throws Exception {
        assertThat(ConfigWarnings.of(config("[\"0.0.0.0/0\"]"))).singleElement().asString().contains("/0");
    }

    @Test
    void staysQuietForANetworkOfProxies() throws Exception {
        assertThat(ConfigWarnings.of(config("[\"10.0.0.0/8\"]"))).isEmpty();
    }

    @Test
    void warnsWhenMetricsAreOpenToEveryClient() throws Exception {
        PorticoConfig open = ConfigLoader.parse(
                "portico { locations = [ { exact = \"/metrics\", metrics = prometheus } ] }", "w.conf", Path.of("."));
        assertThat(ConfigWarnings.of(open)).singleElement().asString()
                .contains("= /metrics serves metrics to every client");
        PorticoConfig restricted = ConfigLoader.parse("portico { locations = [ { exact = \"/metrics\","
                + " metrics = prometheus, allow = [\"127.0.0.1/32\"] } ] }", "w.conf", Path.of("."));
        assertThat(ConfigWarnings.of(restricted)).isEmpty();
    }

    @Test
    void warnsWhenAProxyProtocolListenerTrustsEveryAddress() throws Exception {
        PorticoConfig any = ConfigLoader.parse("portico { listen = [ { address = \"127.0.0.1:8080\","
                + " proxy-protocol = true, trusted = [\"0.0.0.0/0\", \"::/0\"] } ] }", "w.conf", Path.of("."));
        assertThat(ConfigWarnings.of(any)).singleElement().asString()
                .startsWith("listener 127.0.0.1:8080 takes a PROXY protocol header from every address");
        PorticoConfig balancers = ConfigLoader.parse("portico { listen = [ { address = \"127.0.0.1:8080\","
                + " proxy-protocol = true, trusted = [\"10.0.0.2\"] } ] }", "w.conf", Path.of("."));
        assertThat(ConfigWarnings.of(balancers)).isEmpty();
    }
}
