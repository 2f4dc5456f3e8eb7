package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManagedProcessTest {

    private static List<String> command(String... args) {
        List<String> c = new ArrayList<>(BuiltInScenarios.javaPrefix());
        c.add(PortListenerMain.class.getName());
        c.addAll(List.of(args));
        return c;
    }

    @Test
    void waitsForThePortAndIsGoneAfterClose(@TempDir Path dir) throws Exception {
        int port = BuiltInScenarios.freePort();
        ManagedProcess p = ManagedProcess.start("listener", command(String.valueOf(port)), dir.resolve("l.log"));
        try (p) {
            p.awaitPort(port, Duration.ofSeconds(20));
            assertThat(p.isAlive()).isTrue();
        }
        assertThat(p.isAlive()).isFalse();
        assertThat(ProcessHandle.of(p.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void aProcessThatDiesFailsFastWithItsOutput(@TempDir Path dir) throws Exception {
        int port = BuiltInScenarios.freePort();
        try (ManagedProcess p = ManagedProcess.start("dying", command(String.valueOf(port), "7"),
                dir.resolve("d.log"))) {
            assertThatThrownBy(() -> p.awaitPort(port, Duration.ofSeconds(20))).isInstanceOf(IOException.class)
                    .hasMessageContaining("exited with code 7").hasMessageContaining("failing on purpose");
        }
    }

    @Test
    void generatedConfigurationHasTheScenarioLocations() {
        String conf = BuiltInScenarios.porticoConf(8080, 9090, Path.of("/tmp/s"));
        assertThat(conf).contains("listen = [\"127.0.0.1:8080\"]", "servers = [\"127.0.0.1:9090\"]",
                "perclient { rate = 100r/s, burst = 20, nodelay = true }", "alias = \"/tmp/s/\"",
                "{ path = \"/limited/\", proxy = app, rate-limit = perclient }", "access-log = off",
                "demo-app.enabled = false");
        assertThat(com.typesafe.config.ConfigFactory.parseString(conf).getConfigList("portico.locations")).hasSize(3);
    }
}
