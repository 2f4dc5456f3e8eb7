package io.portico.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DemoFilesTest {

    @TempDir
    Path dir;

    private Path root;
    private DemoFiles files;

    @BeforeEach
    void setUp() throws IOException {
        root = Files.createDirectories(dir.resolve("site"));
        Files.createDirectories(root.resolve("css"));
        files = new DemoFiles(root);
    }

    @Test
    void resolvesDecodedSegmentsUnderTheRoot() {
        assertThat(files.resolve("css/a%20b+c.css")).contains(root.resolve("css/a b+c.css"));
        assertThat(files.resolve("./css//x.css")).contains(root.resolve("css/x.css"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"../pom.xml", "%2e%2e/pom.xml", "%2E%2E%2Fpom.xml", "css/../../pom.xml", "..%5cpom.xml",
            "a%00b", "%zz", "", "/"})
    void refusesWhatCouldEscapeOrNamesNothing(String raw) {
        assertThat(files.resolve(raw)).isEmpty();
    }

    @Test
    void refusesASymlinkThatLeadsOutside() throws IOException {
        Files.writeString(dir.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("link.txt"), dir.resolve("secret.txt"));
        var response = files.serve("link.txt");
        try {
            assertThat(response.status().code()).isEqualTo(404);
        } finally {
            response.release();
        }
    }

    @Test
    void aDirectoryIsNotAFile() {
        var response = files.serve("css");
        try {
            assertThat(response.status().code()).isEqualTo(404);
        } finally {
            response.release();
        }
    }
}
