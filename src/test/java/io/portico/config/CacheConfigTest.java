package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** caches { } and a location's cache { }: read as written, defaults from reference.conf, mistakes named by line. */
class CacheConfigTest {
    @TempDir
    Path prefix;

    private static final String UPSTREAM = "upstreams { app { servers = [\"127.0.0.1:5000\"] } }\n";

    @Test
    void theIssuesExampleReadsAsWritten() throws Exception {
        PorticoConfig c = ConfigLoader.parse("portico {\n" + UPSTREAM + """
                caches { pages { max-size = 256m } }
                locations = [{ path = "/", proxy = app, cache { zone = pages,
                  valid = { 200 = 1s, 301 = 1m, 404 = 10s }, key = "$scheme$host$request_uri",
                  methods = [GET, HEAD], max-object-size = 1m, honor-cache-control = true,
                  use-stale = [error, timeout, http_500, http_502, http_503, http_504, updating],
                  lock-timeout = 2s, bypass = ["$cookie_session", "$http_x_no_cache"] } }]
                }""", "x.conf", prefix);
        assertThat(c.caches()).containsEntry("pages", new CacheZoneConfig("pages", 256L << 20, Duration.ofMinutes(10)));
        CacheConfig cache = c.locations().get(0).cache().orElseThrow();
        assertThat(cache.zone()).isEqualTo("pages");
        assertThat(cache.valid()).isEqualTo(Map.of(200, Duration.ofSeconds(1), 301, Duration.ofMinutes(1),
                404, Duration.ofSeconds(10)));
        assertThat(cache.key().text()).isEqualTo("$scheme$host$request_uri");
        assertThat(cache.methods()).isEqualTo(Set.of("GET", "HEAD"));
        assertThat(cache.maxObjectSize()).isEqualTo(1 << 20);
        assertThat(cache.useStale()).hasSize(7);
        assertThat(cache.lockTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(cache.bypass()).extracting(TextTemplate::parts).containsExactly(
                List.of(new TextTemplate.Field(TextTemplate.Field.Source.COOKIE, "session")),
                List.of(new TextTemplate.Field(TextTemplate.Field.Source.HEADER, "x-no-cache")));
    }

    @Test
    void checkPrintsTheCacheAndItsDumpReadsBackTheSame() throws Exception {
        PorticoConfig c = ConfigLoader.parse("portico {\n" + UPSTREAM + """
                caches { pages { max-size = 256m } }
                locations = [{ path = "/", proxy = app, cache { zone = pages, valid = { 200 = 1s, any = 5s },
                  use-stale = [updating, error], bypass = ["$cookie_session"] } }]
                }""", "x.conf", prefix);
        String dump = ConfigDump.render(c);
        assertThat(dump).contains("caches {", "max-size = 268435456", "zone = pages",
                "valid = { 200 = 1s, any = 5s }", "use-stale = [\"error\", \"updating\"]",
                "bypass = [\"$cookie_session\"]", "lock-timeout = 5s");
        Path again = prefix.resolve("again.conf");
        java.nio.file.Files.writeString(again, dump);
        assertThat(ConfigDump.render(ConfigLoader.load(again, java.util.Optional.of(prefix)))).isEqualTo(dump);
    }

    @Test
    void defaultsComeFromReferenceConf() throws Exception {
        PorticoConfig c = ConfigLoader.parse("portico {\n" + UPSTREAM
                + "caches { pages {} }\nlocations = [{ path = \"/\", proxy = app, cache { zone = pages } }]\n}",
                "x.conf", prefix);
        CacheConfig cache = c.locations().get(0).cache().orElseThrow();
        assertThat(c.caches().get("pages").maxSize()).isEqualTo(64L << 20);
        assertThat(cache.valid()).isEmpty();
        assertThat(cache.validAny()).isEmpty();
        assertThat(cache.honorCacheControl()).isTrue();
        assertThat(cache.lockTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(cache.useStale()).isEmpty();
        assertThat(c.locations().get(0).cache()).isPresent();
    }

    @Test
    void anUnknownZoneABadStatusAndABadDurationAreNamedWithTheirLine() {
        assertThat(problems(UPSTREAM + """
                caches { pages { max-size = 1m } }
                locations = [{ path = "/", proxy = app, cache {
                  zone = page,
                  valid = { 200 = 1s, 99 = 1m, 404 = ten },
                  use-stale = [error, http_418],
                  methods = [GET, POST] } }]""")).containsExactlyInAnyOrder(
                "x.conf:5: portico.locations.0.cache.zone: 'page' names no cache zone (expected: one of [pages]"
                        + " from caches)",
                "x.conf:6: portico.locations.0.cache.valid.99: '99' is not a status (expected: 200 to 599, or any)",
                "x.conf:6: portico.locations.0.cache.valid.404: 'ten': not valid (expected: a duration such as"
                        + " 500ms, 10s, 5m)",
                "x.conf:7: portico.locations.0.cache.use-stale: 'http_418' (expected: some of " 
                        + CacheConfig.STALE_CONDITIONS + ")",
                "x.conf:8: portico.locations.0.cache.methods: 'POST' (expected: GET, HEAD; other methods are"
                        + " never cached)");
    }

    @Test
    void aCacheOnAStaticLocationAndAnUnknownKeyAreRefused() {
        assertThat(problems("caches { pages {} }\n"
                + "locations = [{ path = \"/\", root = \"static/\", cache { zone = pages, vaild = {} } }]"))
                .containsExactlyInAnyOrder(
                "x.conf:3: portico.locations.0.cache: a cache needs a proxy target (expected: cache on a proxy"
                        + " location)",
                "x.conf:3: portico.locations.0.cache.vaild: unknown key (did you mean 'valid'?)");
    }

    private List<String> problems(String body) {
        try {
            java.nio.file.Files.createDirectories(prefix.resolve("static"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> ConfigLoader.parse("portico {\n" + body + "\n}", "x.conf", prefix));
        assertThat(e).as("must be refused: %s", body).isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }
}
