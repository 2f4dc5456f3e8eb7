package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValue;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A duration without a unit is refused: Typesafe Config would read {@code 75} as 75 ms, nginx as 75 s. */
class DurationUnitTest {
    /** Where the keys of each defaults section are read, in the entries the test config declares. */
    private static final Map<String, String> ENTRY_OF_DEFAULTS = Map.of(
            "defaults.upstream.", "upstreams.app.",
            "defaults.upstream-server.", "upstreams.app.servers.0.",
            "defaults.health-check.", "upstreams.app.health-check.",
            "defaults.rate-limit.", "rate-limits.z.",
            "defaults.limit-conn.", "limit-conn.c.",
            "defaults.location.", "locations.0.",
            "defaults.cache-zone.", "caches.pages.",
            "defaults.cache.", "locations.1.cache.");
    /** Duration keys whose default is null, so that reference.conf does not show them as durations. */
    private static final Set<String> NULL_DEFAULT_DURATIONS = Set.of("defaults.location.expires");

    @TempDir
    Path prefix;

    @Test
    void aBareNumberIsRefusedWithFileLineKeyAndTheSpellingToUse() throws IOException {
        Path conf = Files.createDirectories(prefix.resolve("conf"));
        Path file = conf.resolve("bare-durations.conf");
        Files.writeString(file, resource("bare-durations.conf"));
        InvalidConfigException e = catchThrowableOfType(
                InvalidConfigException.class, () -> ConfigLoader.load(file, Optional.empty()));
        assertThat(e).isNotNull();
        String actual = e.problems().stream().map(ConfigProblem::toString).collect(Collectors.joining("\n"))
                .replace(conf + "/", "");
        assertThat(actual + "\n").isEqualTo(resource("bare-durations.errors"));
    }

    @Test
    void everyDurationKeyOfTheReferenceRefusesABareNumber() throws Exception {
        Files.createDirectories(prefix.resolve("static"));
        Config reference =
                ConfigFactory.parseResources(ConfigLoader.class, "/reference.conf").resolve().getConfig("portico");
        Set<String> durationKeys = new TreeSet<>(NULL_DEFAULT_DURATIONS);
        for (Map.Entry<String, ConfigValue> e : reference.entrySet()) {
            // "1m" is also a size (a mebibyte): keys named for a size are sizes.
            // A TLS listener needs certificate files: TlsConfigTest checks its durations. A listener object's own
            // (proxy-protocol-timeout) is an entry of the listen list: ProxyProtocolConfigTest checks it.
            if (e.getValue().unwrapped() instanceof String s && s.matches("[0-9]+(ms|s|m|h)")
                    && !e.getKey().contains("size") && !e.getKey().startsWith("defaults.tls.")
                    && !e.getKey().startsWith("defaults.listener.")) {
                durationKeys.add(e.getKey());
            }
        }
        assertThat(durationKeys).contains("limits.keepalive-timeout", "defaults.upstream.connect-timeout");

        StringBuilder text = new StringBuilder("""
                upstreams { app { servers = [{ address = "127.0.0.1:5000" }], health-check {} } }
                rate-limits { z { rate = 1r/s } }
                limit-conn { c { max = 1 } }
                caches { pages {} }
                locations = [{ path = "/", root = "static/" }, { path = "/p/", proxy = app, cache { zone = pages } }]
                """);
        Set<String> expected = new TreeSet<>();
        for (String key : durationKeys) {
            String readAt = key;
            for (Map.Entry<String, String> d : ENTRY_OF_DEFAULTS.entrySet()) {
                if (key.startsWith(d.getKey())) {
                    readAt = d.getValue() + key.substring(d.getKey().length());
                }
            }
            assertThat(readAt).as("a defaults section this test does not map: %s", key).doesNotStartWith("defaults.");
            text.append(readAt.replace(".0.", "0.").replace("locations.1.", "locations1.")).append(" = 75\n");
            expected.add("portico." + readAt);
        }
        // HOCON has no list index paths: write the element keys into the list entries instead.
        String config = inlineListEntries(text.toString());
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> ConfigLoader.parse("portico {\n" + config + "}", "x.conf", prefix));
        assertThat(e).as("bare durations must be refused:\n%s", config).isNotNull();
        Set<String> refused = e.problems().stream().filter(p -> p.message().contains("'75' has no unit"))
                .map(ConfigProblem::key).collect(Collectors.toCollection(TreeSet::new));
        assertThat(refused).isEqualTo(expected);
    }

    @Test
    void zeroAndDurationsWithAUnitStayValid() throws Exception {
        PorticoConfig config = ConfigLoader.parse(
                "portico { limits { keepalive-timeout = 0, send-timeout = 75s, client-body-timeout = \"1500ms\" } }",
                "x.conf", prefix);
        assertThat(config.limits().keepaliveTimeout()).isEqualTo(Duration.ZERO);
        assertThat(config.limits().sendTimeout()).isEqualTo(Duration.ofSeconds(75));
        assertThat(config.limits().clientBodyTimeout()).isEqualTo(Duration.ofMillis(1500));
    }

    /**
     * {@code servers0.K = 75} and {@code locations0.K = 75} lines become keys of the list's first element,
     * {@code locations1.cache.K = 75} keys of the second location's cache.
     */
    private static String inlineListEntries(String text) {
        StringBuilder servers = new StringBuilder();
        StringBuilder location = new StringBuilder();
        StringBuilder cache = new StringBuilder();
        StringBuilder rest = new StringBuilder();
        for (String line : text.split("\n")) {
            if (line.startsWith("upstreams.app.servers0.")) {
                servers.append(", ").append(line.substring("upstreams.app.servers0.".length()));
            } else if (line.startsWith("locations1.cache.")) {
                cache.append(", ").append(line.substring("locations1.cache.".length()));
            } else if (line.startsWith("locations0.")) {
                location.append(", ").append(line.substring("locations0.".length()));
            } else {
                rest.append(line).append('\n');
            }
        }
        return rest.toString()
                .replace("{ address = \"127.0.0.1:5000\" }", "{ address = \"127.0.0.1:5000\"" + servers + " }")
                .replace("root = \"static/\" }", "root = \"static/\"" + location + " }")
                .replace("cache { zone = pages }", "cache { zone = pages" + cache + " }");
    }

    private String resource(String name) throws IOException {
        try (InputStream in = getClass().getResourceAsStream("/config/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
