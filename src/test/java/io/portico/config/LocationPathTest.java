package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A location's path is written as requests are matched, after {@link RequestPath} normalization, or refused. */
class LocationPathTest {

    private static InvalidConfigException refused(String location) {
        String text = "portico {\n locations = [\n" + location + "\n ]\n}";
        return catchThrowableOfType(InvalidConfigException.class,
                () -> ConfigLoader.parse(text, "test.conf", Path.of(".")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{ path = \"//admin/\", return = 403 }       | test.conf:3: portico.locations.0.path: '//admin/' would never match a normalized request path (expected: /admin/)",
        "{ exact = \"/a/./b\", return = 403 }        | test.conf:3: portico.locations.0.exact: '/a/./b' would never match a normalized request path (expected: /a/b)",
        "{ path = \"/%61dmin/\", return = 403 }      | test.conf:3: portico.locations.0.path: '/%61dmin/' would never match a normalized request path (expected: /admin/)",
        "{ path = \"/caf%c3%a9/\", return = 403 }    | test.conf:3: portico.locations.0.path: '/caf%c3%a9/' would never match a normalized request path (expected: /caf%C3%A9/)",
        "{ path = \"/../x/\", return = 403 }         | test.conf:3: portico.locations.0.path: '/../x/' would never match a normalized request path (expected: a path without spaces, control bytes, '#' or '\\', that stays below /)",
    })
    void aPathSpelledOtherwiseIsRefusedWithItsNormalForm(String location, String problem) {
        InvalidConfigException e = refused(location);
        assertThat(e).isNotNull();
        assertThat(e.problems()).extracting(ConfigProblem::toString).containsExactly(problem);
    }

    @Test
    void aNormalizedPathIsAccepted() throws Exception {
        PorticoConfig config = ConfigLoader.parse(
                "portico {\n locations = [ { path = \"/caf%C3%A9/a:b@c/\", return = 204 } ]\n}", "t.conf", Path.of("."));
        assertThat(config.locations()).extracting(l -> l.match().value()).containsExactly("/caf%C3%A9/a:b@c/");
    }
}
