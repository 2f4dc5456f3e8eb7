package io.portico.nginx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** nginx's own syntax: words, quotes, comments, blocks, includes (relative to the main file, globs sorted). */
class NginxParserTest {
    @TempDir
    Path dir;

    private List<Directive> parse(String text) throws Exception {
        Path f = dir.resolve("nginx.conf");
        Files.writeString(f, text);
        return NginxParser.parse(f).directives();
    }

    private String error(String text) {
        NginxSyntaxException e = catchThrowableOfType(NginxSyntaxException.class, () -> parse(text));
        assertThat(e).as("refused").isNotNull();
        return e.getMessage();
    }

    @Test
    void wordsQuotesCommentsAndVariablesInBraces() throws Exception {
        List<Directive> d = parse("# a comment\n"
                + "add_header X-A \"a b;c\" always; # trailing\n"
                + "location ~ \\.php$ { return 200 'it\\'s'; }\n"
                + "set $x ${host}_y;\n"
                + "log_format main '$remote_addr \\\"q\\\"'\n   '$status';\n");
        assertThat(d).hasSize(4);
        assertThat(d.get(0).args()).containsExactly("X-A", "a b;c", "always");
        assertThat(d.get(0).source()).hasToString("nginx.conf:2");
        assertThat(d.get(1).args()).containsExactly("~", "\\.php$");
        assertThat(d.get(1).block()).singleElement().satisfies(r -> assertThat(r.args()).containsExactly("200", "it's"));
        assertThat(d.get(2).args()).containsExactly("$x", "${host}_y");
        assertThat(d.get(3).args()).containsExactly("main", "$remote_addr \"q\"", "$status");
        assertThat(d.get(3).source().line()).isEqualTo(5);
    }

    @Test
    void includesResolveAgainstTheMainFilesFolderAndGlobsReadInNameOrder() throws Exception {
        Files.createDirectories(dir.resolve("conf.d"));
        Files.createDirectories(dir.resolve("sites"));
        Files.writeString(dir.resolve("conf.d/b.conf"), "keepalive_timeout 5;\n");
        Files.writeString(dir.resolve("conf.d/a.conf"), "send_timeout 3;\n");
        Files.writeString(dir.resolve("conf.d/skip.txt"), "bogus directive;\n");
        // sites/x includes "snippets.conf": relative to nginx.conf's folder, as nginx does, not to sites/.
        Files.writeString(dir.resolve("sites/x"), "server { include snippets.conf; }\n");
        Files.writeString(dir.resolve("snippets.conf"), "root /srv;\n");
        List<Directive> d = parse("http {\n include conf.d/*.conf;\n include sites/*;\n include none.d/*.conf;\n}\n");
        List<Directive> http = d.get(0).block();
        assertThat(http).extracting(Directive::name).containsExactly("send_timeout", "keepalive_timeout", "server");
        assertThat(http.get(0).source()).hasToString("conf.d/a.conf:1");
        assertThat(http.get(2).block()).singleElement().satisfies(r -> {
            assertThat(r.name()).isEqualTo("root");
            assertThat(r.source()).hasToString("snippets.conf:1");
        });
    }

    @Test
    void aMissingStockFileIsNotedAndAnyOtherMissingIncludeIsAnError() throws Exception {
        Path f = dir.resolve("nginx.conf");
        Files.writeString(f, "http {\n include mime.types;\n}\n");
        NginxParser.Parsed p = NginxParser.parse(f);
        assertThat(p.missingStock()).singleElement().hasToString("nginx.conf:2");
        assertThat(error("http {\n  include sites-enabled/default;\n}\n"))
                .isEqualTo("nginx.conf:2: include \"" + dir.resolve("sites-enabled/default")
                        + "\" does not exist (nginx: open() failed)");
    }

    @Test
    void anUnterminatedBlockNamesItsFileAndLine() {
        assertThat(error("http {\n server {\n  listen 80;\n }\n"))
                .isEqualTo("nginx.conf:4: unexpected end of file, expecting \"}\" (a block is not closed)");
    }

    @Test
    void aMissingSemicolonIsNamed() {
        assertThat(error("server {\n  listen 80\n  root /srv;\n}\n"))
                .isEqualTo("nginx.conf:2: directive \"listen\" is not terminated by \";\" (the next line starts \"root\")");
        assertThat(error("server {\n  root /srv\n}\n"))
                .isEqualTo("nginx.conf:3: unexpected \"}\": directive \"root\" at line 2 is not terminated by \";\"");
        assertThat(error("worker_processes 2"))
                .startsWith("nginx.conf:1: unexpected end of file, expecting \";\" or \"}\"");
    }

    @Test
    void strayBracesAndBlocksWithoutBraceAreRefused() {
        assertThat(error("}\n")).startsWith("nginx.conf:1: unexpected \"}\"");
        assertThat(error("server;\n")).isEqualTo("nginx.conf:1: directive \"server\" has no opening \"{\"");
        assertThat(error("root /x {\n}\n")).isEqualTo("nginx.conf:1: directive \"root\" is not terminated by \";\"");
        assertThat(error("return 200 \"ok;\n")).startsWith("nginx.conf:1: unterminated quoted string");
    }

    @Test
    void textAfterAClosingQuoteIsRefusedAsNginxDoes() {
        assertThat(error("return 200 'a''b';\n")).isEqualTo(
                "nginx.conf:1: unexpected \"'\" after a closing quote (expected: a space, ; or {)");
    }

    @Test
    void anIncludeCycleIsRefused() throws Exception {
        Files.writeString(dir.resolve("loop.conf"), "include loop.conf;\n");
        assertThat(error("include loop.conf;\n")).contains("loop.conf:1: includes nest deeper than 16");
    }

    @Test
    void anErrorInAnIncludedFileNamesThatFile() throws Exception {
        Files.createDirectories(dir.resolve("conf.d"));
        Files.writeString(dir.resolve("conf.d/x.conf"), "server {\n listen 80;\n");
        assertThat(error("http { include conf.d/*.conf; }\n"))
                .isEqualTo("conf.d/x.conf:2: unexpected end of file, expecting \"}\" (a block is not closed)");
    }
}
