package io.portico.route;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.LocationConfig;
import io.portico.config.LocationConfig.Match.Kind;
import io.portico.config.TargetConfig;
import io.portico.config.TextTemplate;
import io.portico.exchange.Route;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RouterTest {
    private static final TargetConfig TARGET = new TargetConfig.Return(200, Optional.empty(), TextTemplate.literal(""));

    private static LocationConfig location(Kind kind, String value) {
        return new LocationConfig(new LocationConfig.Match(kind, value), TARGET, List.of(), List.of(), value);
    }

    private static String matched(Router router, String path) {
        Route r = router.match(path);
        return r == null ? null : r.location().match().toString();
    }

    @Test
    void exactWinsThenRegexesInOrderThenTheLongestPrefix() {
        Router router = Router.build(List.of(
                location(Kind.PREFIX, "/"),
                location(Kind.PREFIX, "/static/"),
                location(Kind.PREFIX, "/static/img/"),
                location(Kind.REGEX, "\\.php$"),
                location(Kind.REGEX, "^/static/.*\\.php$"),
                location(Kind.EXACT, "/static/a.php")), l -> null);
        assertThat(matched(router, "/static/a.php")).isEqualTo("= /static/a.php");
        assertThat(matched(router, "/static/b.php")).isEqualTo("~ \\.php$");
        assertThat(matched(router, "/static/img/x.png")).isEqualTo("/static/img/");
        assertThat(matched(router, "/static/imgs/x.png")).isEqualTo("/static/");
        assertThat(matched(router, "/static")).isEqualTo("/");
        assertThat(matched(router, "/")).isEqualTo("/");
    }

    @Test
    void noPrefixMatchesIsNull() {
        Router router = Router.build(List.of(location(Kind.PREFIX, "/api/"), location(Kind.PREFIX, "/apis")),
                l -> null);
        assertThat(matched(router, "/ap")).isNull();
        assertThat(matched(router, "/api")).isNull();
        assertThat(matched(router, "/apix")).isNull();
        assertThat(matched(router, "/api/")).isEqualTo("/api/");
        assertThat(matched(router, "/apis/x")).isEqualTo("/apis");
        assertThat(matched(router, "/x")).isNull();
    }

    @Test
    void prefixesThatShareAndSplitEdgesInAnyOrder() {
        List<String> prefixes = List.of("/abc/def", "/abc/", "/ab", "/abd", "/a", "/abc/de", "/b/");
        for (int rotation = 0; rotation < prefixes.size(); rotation++) {
            List<LocationConfig> ls = new ArrayList<>();
            for (int i = 0; i < prefixes.size(); i++) {
                ls.add(location(Kind.PREFIX, prefixes.get((i + rotation) % prefixes.size())));
            }
            Router router = Router.build(ls, l -> null);
            assertThat(matched(router, "/abc/defg")).isEqualTo("/abc/def");
            assertThat(matched(router, "/abc/dex")).isEqualTo("/abc/de");
            assertThat(matched(router, "/abc/d")).isEqualTo("/abc/");
            assertThat(matched(router, "/abc")).isEqualTo("/ab");
            assertThat(matched(router, "/abdx")).isEqualTo("/abd");
            assertThat(matched(router, "/ax")).isEqualTo("/a");
            assertThat(matched(router, "/b")).isNull();
        }
    }

    /** The tree against the obvious rule (the longest prefix that the path starts with) on random locations. */
    @Test
    void agreesWithALinearScanOnRandomLocations() {
        Random random = new Random(22);
        for (int round = 0; round < 50; round++) {
            List<String> prefixes = new ArrayList<>();
            for (int i = 0; i < 1 + random.nextInt(60); i++) {
                prefixes.add(randomPath(random));
            }
            List<LocationConfig> ls = prefixes.stream().distinct().map(p -> location(Kind.PREFIX, p)).toList();
            Router router = Router.build(ls, l -> null);
            List<String> longestFirst = ls.stream().map(l -> l.match().value())
                    .sorted(Comparator.comparingInt(String::length).reversed()).toList();
            for (int q = 0; q < 200; q++) {
                String path = random.nextBoolean() ? randomPath(random)
                        : prefixes.get(random.nextInt(prefixes.size())) + randomPath(random).substring(1);
                String expected = longestFirst.stream().filter(path::startsWith).findFirst().orElse(null);
                assertThat(matched(router, path)).as("%s among %s", path, prefixes).isEqualTo(expected);
            }
        }
    }

    private static String randomPath(Random random) {
        StringBuilder sb = new StringBuilder("/");
        for (int i = random.nextInt(8); i > 0; i--) {
            sb.append("ab/c".charAt(random.nextInt(4)));
        }
        return sb.toString();
    }
}
