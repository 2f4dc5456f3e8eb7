package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class OptionParsingTest {

    @Test
    void durationsTakeTheUsualUnits() {
        assertThat(DurationText.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationText.parse("5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DurationText.parse("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(DurationText.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(DurationText.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(DurationText.parse("10")).isEqualTo(Duration.ofSeconds(10));
        assertThatThrownBy(() -> DurationText.parse("5x")).hasMessageContaining("duration: 5x (expected:");
        assertThatThrownBy(() -> DurationText.parse("-1s")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void siegeUrlFilesTakeAMethodAndBodyAfterTheUrl() {
        List<RequestTarget> t = UrlListFile.parse("""
                # login then browse
                http://127.0.0.1:8080/login POST user=a&pass=b c
                127.0.0.1:8080/home

                http://127.0.0.1:8080/item PUT
                """, "GET", new byte[0]);
        assertThat(t).hasSize(3);
        assertThat(t.get(0).method()).isEqualTo("POST");
        assertThat(new String(t.get(0).body(), StandardCharsets.UTF_8)).isEqualTo("user=a&pass=b c");
        assertThat(t.get(1).method()).isEqualTo("GET");
        assertThat(t.get(1).uri().toString()).isEqualTo("http://127.0.0.1:8080/home");
        assertThat(t.get(2).method()).isEqualTo("PUT");
        assertThat(t.get(2).body()).isEmpty();
        assertThatThrownBy(() -> UrlListFile.parse("http://h/ FETCH x", "GET", null)).hasMessageContaining("line 1");
        assertThatThrownBy(() -> UrlListFile.parse("# nothing\n", "GET", null)).hasMessageContaining("no URL");
    }

    @Test
    void targetsRejectWhatTheClientCannotSpeak() {
        assertThatThrownBy(() -> RequestTarget.of("ftp://example.com/", "GET", null))
                .hasMessageContaining("expected: http[s]://");
        RequestTarget secure = RequestTarget.of("https://example.com/", "GET", null);
        assertThat(secure.secure()).isTrue();
        assertThat(secure.port()).isEqualTo(443);
        assertThat(secure.hostHeader()).isEqualTo("example.com");
        assertThat(RequestTarget.of("https://example.com:80/", "GET", null).hostHeader()).isEqualTo("example.com:80");
        assertThat(RequestTarget.of("https://[::1]:8443/", "GET", null).sniHost()).isEqualTo("::1");
        RequestTarget t = RequestTarget.of("http://localhost/a%20b?x=1", "get", null);
        assertThat(t.method()).isEqualTo("GET");
        assertThat(t.pathAndQuery()).isEqualTo("/a%20b?x=1");
        assertThat(t.hostHeader()).isEqualTo("localhost");
        assertThat(RequestTarget.of("http://[::1]:81", "GET", null).hostHeader()).isEqualTo("[::1]:81");
    }

    @Test
    void h2OptionsRefuseWhatOneConnectionPerOriginCannotDo() {
        List<RequestTarget> two = List.of(RequestTarget.of("https://a.test/", "GET", null),
                RequestTarget.of("https://b.test/", "GET", null));
        assertThatThrownBy(() -> new BenchOptions(two, 1, 0, 0, null, true, List.of(), Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, List.of(), 1, false, true, 2).requireOneOrigin())
                .hasMessageContaining("--h2: https://b.test/");
        List<RequestTarget> one = two.subList(0, 1);
        assertThatThrownBy(() -> new BenchOptions(one, 1, 0, 0, null, false, List.of(), Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, List.of(), 1, false, true, 2))
                .hasMessageContaining("--no-keepalive");
        assertThatThrownBy(() -> new BenchOptions(one, 1, 0, 0, null, true, List.of(), Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, List.of(), 1, false, false, 2))
                .hasMessageContaining("with --h2");
        BenchOptions ok = new BenchOptions(one, 3, 0, 2, null, true, List.of(), Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, List.of(), 1, false, true, 4);
        assertThat(ok.slots()).isEqualTo(12);
        assertThat(ok.requestBudget()).as("-r is per stream slot").isEqualTo(24);
    }

    @Test
    void fdLimitWarningNamesTheClientAndTheFix() {
        assertThat(FdLimit.check(100, OptionalLong.of(1024), 50)).isNull();
        assertThat(FdLimit.check(100, OptionalLong.empty(), 50)).isNull();
        assertThat(FdLimit.check(5000, OptionalLong.of(1024), 50)).contains("Too many open files")
                .contains("not the server's").contains("ulimit -n 65536");
        assertThat(FdLimit.soft()).isNotNull();
    }

    @Test
    void optionsValidateWithTheUsualMessages() {
        List<RequestTarget> t = List.of(RequestTarget.of("http://127.0.0.1/", "GET", null));
        assertThatThrownBy(() -> new BenchOptions(t, 0, 0, 0, null, true, List.of(), Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 0, List.of(), 1))
                .hasMessage("connections: 0 (expected: > 0)");
        assertThatThrownBy(() -> new BenchOptions(t, 1, 0, 5, null, true, List.of(), Duration.ZERO,
                Duration.ofSeconds(1), Duration.ofSeconds(1), 100, List.of(), 1))
                .hasMessageContaining("not with -R");
        BenchOptions defaults = BenchOptions.defaults(t);
        assertThat(defaults.duration()).isEqualTo(BenchOptions.DEFAULT_DURATION);
        assertThat(defaults.keepAlive()).isTrue();
        assertThat(new BenchOptions(t, 4, 0, 25, null, true, List.of(), Duration.ZERO, Duration.ofSeconds(1),
                Duration.ofSeconds(1), 0, List.of(), 1).requestBudget()).isEqualTo(100);
    }
}
