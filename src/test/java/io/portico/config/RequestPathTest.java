package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPathTest {

    @Test
    void aNormalPathIsReturnedAsTheSameString() {
        String path = "/static/app.css";
        assertThat(RequestPath.normalize(path)).isSameAs(path);
        String tricky = "/a.b/..c/.d/c..";
        assertThat(RequestPath.normalize(tricky)).isSameAs(tricky);
    }

    @ParameterizedTest
    @CsvSource({
        "//sub/index.html, /sub/index.html",
        "/./sub/index.html, /sub/index.html",
        "/x/../sub/index.html, /sub/index.html",
        "/%73ub/index.html, /sub/index.html",
        "/%69ndex.html, /index.html",
        "///admin//secret, /admin/secret",
        "/admin/., /admin/",
        "/admin/x/.., /admin/",
        "/admin/%2e%2E/admin, /admin",
        "/%2E/admin, /admin",
        "/a/b/../../c, /c",
        "/, /",
        "//, /",
        "/., /",
        "/a/.., /",
        "/%7Euser/, /~user/",
        "/caf%c3%a9, /caf%C3%A9",
        "/a%2fb, /a%2Fb",
        "/a%20b, /a%20b",
        "/a|b{c}, /a%7Cb%7Bc%7D",
        "/a\"b, /a%22b",
        "/x/%41%5a%30%2D%2e%5F%7e, /x/AZ0-._~",
        "/a:b@c!$&'()*+;=, /a:b@c!$&'()*+;=",
    })
    void normalizes(String raw, String expected) {
        assertThat(RequestPath.normalize(raw)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/../secret.txt", "/..", "/a/../../b", "/%2e%2e/secret", "/.%2e/x", "//../x",
        "/a%", "/a%2", "/a%zz", "/a%g1", "/a%00b", "/a%٣٣",
        "/a b", "/a\tb", "/a\u0002", "/a\u007f", "/caf\u00e9", "/a#b", "/a\\b",
        "/x/..%2Fsecret", "/x/%2F..", "/x/a%2F..%2Fb", "/x/.%5Cy", "",  "*", "x/y",
    })
    void refuses(String raw) {
        assertThat(RequestPath.normalize(raw)).as("%s", raw).isNull();
    }

    @ParameterizedTest
    @CsvSource({
        "//admin/secret, //admin/secret",
        "/a//b/, /a//b/",
        "/a//../b, /a/b",
        "/a/./b//, /a/b//",
        "/%73ub//x, /sub//x",
    })
    void keepsEmptySegmentsWhenAsked(String raw, String expected) {
        assertThat(RequestPath.normalize(raw, false)).isEqualTo(expected);
    }

    @Test
    void deepPathsKeepEverySegment() {
        String deep = "/" + "a/".repeat(40) + "./b";
        assertThat(RequestPath.normalize(deep)).isEqualTo("/" + "a/".repeat(40) + "b");
    }
}
