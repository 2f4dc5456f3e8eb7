package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
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
    void aScenarioProcessRunsInASessionOfItsOwn(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setsid")) && Files.exists(Path.of("/proc/self/stat")),
                "Linux with util-linux's setsid");
        int port = BuiltInScenarios.freePort();
        try (ManagedProcess p = ManagedProcess.start("listener", command(String.valueOf(port)), dir.resolve("l.log"))) {
            p.awaitPort(port, Duration.ofSeconds(20));
            // the pid is the listener itself (setsid replaced itself with it), and its session is not ours
            assertThat(ProcessHandle.of(p.pid()).flatMap(h -> h.info().command()).orElse("")).endsWith("java");
            assertThat(session(p.pid())).isEqualTo(p.pid()).isNotEqualTo(session(ProcessHandle.current().pid()));
        }
    }

    /** Field 6 of /proc/PID/stat, after the parenthesised command name. */
    private static long session(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[3]);
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
                "demo-app.enabled = false", "caches { micro { max-size = 16m } }",
                "{ path = \"/hello/\", proxy = app, cache { zone = micro, valid = { 200 = 1s } } }");
        assertThat(com.typesafe.config.ConfigFactory.parseString(conf).getConfigList("portico.locations")).hasSize(6);
    }

    @Test
    void theTlsScenarioMakesItsOwnCertificateWithKeytoolAndListensOnTls(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Path[] certAndKey = BuiltInScenarios.selfSigned(dir);
        assertThat(java.nio.file.Files.readString(certAndKey[0])).startsWith("-----BEGIN CERTIFICATE-----\n");
        assertThat(java.nio.file.Files.readString(certAndKey[1])).startsWith("-----BEGIN PRIVATE KEY-----\n");
        String conf = BuiltInScenarios.porticoConf(8080, 9090, Path.of("/tmp/s"), 8443, certAndKey[0], certAndKey[1]);
        assertThat(com.typesafe.config.ConfigFactory.parseString(conf).getList("portico.listen")).hasSize(2);
        // the listener loads: Portico reads the PEM pair keytool's key store became
        io.portico.server.PorticoServer server = io.portico.testing.TestServers.start(
                "listen = [ { address = \"127.0.0.1:0\", tls { certificates = [ { cert = \"" + certAndKey[0]
                        + "\", key = \"" + certAndKey[1] + "\" } ] } } ]\nlocations = [ { path = \"/\", return = "
                        + "{ status = 200, body = \"ok\" } } ]\n");
        try {
            BenchResult r = Runs.run(Runs.options("https://127.0.0.1:" + server.localAddresses().get(0).getPort()
                    + "/", 1, 5, null, 0, java.time.Duration.ofSeconds(5)).withInsecure());
            assertThat(r.tally().statusClass(2)).isEqualTo(5);
            assertThat(r.protocol()).startsWith("HTTP/1.1 over TLSv1.3");
        } finally {
            server.stop();
        }
    }
}
