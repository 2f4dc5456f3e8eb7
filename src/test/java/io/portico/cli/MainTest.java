package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The top-level command line: a first word that names no command is a usage error that says so. */
class MainTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @Test
    void aMisspeltCommandSuggestsTheClosestAndExitsTwo() {
        assertThat(run("chek")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("portico: unknown command 'chek'; did you mean 'check'?"
                + System.lineSeparator());
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aWordCloseToNothingListsTheCommands() {
        assertThat(run("frobnicate", "--conf", "x.conf")).isEqualTo(2);
        assertThat(err.toString()).startsWith("portico: unknown command 'frobnicate' (expected: one of ")
                .contains("serve", "check", "version");
    }

    @Test
    void reloadOfAConfigurationWithProblemsSignalsNothingAndExitsOne() throws Exception {
        java.nio.file.Path conf = java.nio.file.Files.createTempFile("bad", ".conf");
        try {
            java.nio.file.Files.writeString(conf, "portico {\n  workers = many\n}\n");
            assertThat(run("reload", "--conf", conf.toString())).isEqualTo(1);
            assertThat(err.toString()).contains(conf.getFileName() + ":2: portico.workers")
                    .contains("portico: not reloaded");
        } finally {
            java.nio.file.Files.delete(conf);
        }
    }

    @Test
    void optionsWithoutACommandStillMeanServe() {
        // serve with a file that does not exist: the serve command's own refusal, exit 1, not a usage error
        assertThat(run("--conf", "/nonexistent/portico.conf")).isEqualTo(1);
        assertThat(err.toString()).contains("cannot read the configuration file").contains("portico: not started");
    }
}
