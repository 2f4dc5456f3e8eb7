package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Golden tests: sample configs with their expected dump or expected error text. */
class ConfigLoaderTest {
    @TempDir
    Path prefix;

    Path confDir;

    @BeforeEach
    void layout() throws IOException {
        confDir = Files.createDirectories(prefix.resolve("conf"));
        Files.createDirectories(prefix.resolve("static"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"three-mistakes", "many-mistakes"})
    void reportsEveryProblemWithFileLineAndKey(String name) throws IOException {
        Path file = copy(name + ".conf");
        InvalidConfigException e = catchThrowableOfType(
                InvalidConfigException.class, () -> ConfigLoader.load(file, Optional.empty()));
        assertThat(e).as("config %s must be refused", name).isNotNull();
        String actual = e.problems().stream().map(ConfigProblem::toString).collect(Collectors.joining("\n"))
                .replace(confDir + "/", "");
        assertThat(actual + "\n").isEqualTo(golden(name + ".errors"));
    }

    @Test
    void dumpsTheEffectiveConfigWithDefaultsAndAbsolutePaths() throws Exception {
        PorticoConfig config = ConfigLoader.load(copy("full.conf"), Optional.empty());
        assertThat(ConfigDump.render(config)).isEqualTo(golden("full.dump"));
    }

    @Test
    void theDumpReadsBackToTheSameConfig() throws Exception {
        PorticoConfig config = ConfigLoader.load(copy("full.conf"), Optional.empty());
        Path again = confDir.resolve("again.conf");
        Files.writeString(again, ConfigDump.render(config));
        assertThat(ConfigDump.render(ConfigLoader.load(again, Optional.empty()))).isEqualTo(ConfigDump.render(config));
    }

    @Test
    void relativePathsResolveAgainstTheParentOfTheConfigFolder() throws Exception {
        PorticoConfig config = ConfigLoader.load(copy("full.conf"), Optional.empty());
        assertThat(config.prefix()).isEqualTo(prefix.toAbsolutePath().normalize());
        assertThat(((TargetConfig.Static) config.locations().get(3).target()).dir())
                .isEqualTo(prefix.resolve("static").toAbsolutePath().normalize());
    }

    @Test
    void theBundledConfigurationIsValid() throws Exception {
        PorticoConfig config = ConfigLoader.load(Path.of("conf/portico.conf"), Optional.empty());
        assertThat(config.listen()).extracting(ListenerConfig::toString).containsExactly("127.0.0.1:8080");
        assertThat(config.locations()).isNotEmpty();
        assertThat(config.limits().keepaliveTimeout()).isEqualTo(Duration.ofSeconds(75));
    }

    @Test
    void aMissingFileIsOneClearProblem() {
        assertThatThrownBy(() -> ConfigLoader.load(prefix.resolve("nope.conf"), Optional.empty()))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageContaining("nope.conf: cannot read the configuration file");
    }

    @Test
    void aSyntaxErrorNamesTheLine() throws IOException {
        Path file = confDir.resolve("syntax.conf");
        Files.writeString(file, "portico {\n  listen = [\"127.0.0.1:8080\"\n  workers = 2\n");
        InvalidConfigException e = catchThrowableOfType(
                InvalidConfigException.class, () -> ConfigLoader.load(file, Optional.empty()));
        assertThat(e.problems()).hasSize(1);
        assertThat(e.problems().get(0).line()).isGreaterThan(0);
        assertThat(e.problems().get(0).toString()).startsWith(file + ":");
    }

    @Test
    void environmentOverridesThroughOptionalSubstitution() throws Exception {
        PorticoConfig config = ConfigLoader.parse(
                "portico { listen = [\"127.0.0.1:1\"], listen = ${?PORTICO_TEST_UNSET_VARIABLE} }", "env.conf", prefix);
        assertThat(config.listen()).extracting(l -> l.address().port()).containsExactly(1);
    }

    @Test
    void aLocationsMaxBodySizeOverridesTheGlobalOneAndIsCheckedAtLoad() throws Exception {
        PorticoConfig config = ConfigLoader.parse("portico { limits { max-body-size = 1k, client-body-min-rate = 2k }"
                + ", locations = [ { path = \"/up/\", return = 204, max-body-size = 10m },"
                + " { path = \"/\", return = 204 } ] }", "b.conf", prefix);
        assertThat(config.locations().get(0).maxBodySize()).hasValue(10L << 20);
        assertThat(config.locations().get(1).maxBodySize()).isEmpty();
        assertThat(config.limits().clientBodyMinRate()).isEqualTo(2048);
        assertThat(ConfigDump.render(config)).contains("max-body-size = 10485760", "client-body-min-rate = 2048");
        assertThatThrownBy(() -> ConfigLoader.parse("portico { limits { client-body-min-rate = fast }\n"
                + ", locations = [ { path = \"/\", return = 204,\n max-body-size = lots } ] }", "b.conf", prefix))
                .hasMessageContaining("b.conf:1: portico.limits.client-body-min-rate: 'fast'")
                .hasMessageContaining("b.conf:3: portico.locations.0.max-body-size: 'lots'");
    }

    @Test
    void keysOutsidePorticoAreUnknown() {
        assertThatThrownBy(() -> ConfigLoader.parse("portcio { workers = 2 }", "x.conf", prefix))
                .hasMessageContaining("x.conf:1: portcio: unknown key");
    }

    @Test
    void workersAutoIsTheNumberOfCores() throws Exception {
        PorticoConfig config = ConfigLoader.parse("portico { workers = auto }", "x.conf", prefix);
        assertThat(config.workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
    }

    @Test
    void defaultsApplyToEveryEntryThatDoesNotSetThem() throws Exception {
        PorticoConfig config = ConfigLoader.parse("""
                portico {
                  defaults.upstream.connect-timeout = 2s
                  upstreams { a { servers = ["127.0.0.1:1"] }, b { servers = ["127.0.0.1:2"], connect-timeout = 3s } }
                }""", "x.conf", prefix);
        assertThat(config.upstreams().get("a").connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.upstreams().get("b").connectTimeout()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void rateIsExact() throws Exception {
        PorticoConfig config = ConfigLoader.parse(
                "portico { rate-limits { m { rate = 1r/m } } }", "x.conf", prefix);
        assertThat(config.rateLimits().get("m").ratePerSecond()).isEqualTo(1.0 / 60);
    }

    private Path copy(String resource) throws IOException {
        Path out = confDir.resolve(resource);
        Files.writeString(out, golden(resource));
        return out;
    }

    private String golden(String resource) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/config/" + resource)) {
            assertThat(in).as("golden file %s", resource).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .replace("${PREFIX}", prefix.toAbsolutePath().normalize().toString());
        }
    }
}
