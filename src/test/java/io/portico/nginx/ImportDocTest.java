package io.portico.nginx;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/from-nginx.md's directive table is {@link DirectiveTable#markdown()}, so the docs and the code cannot drift.
 * After changing the table, regenerate the docs with {@code -Dimport.doc.update=true}.
 */
class ImportDocTest {
    static final String START = "<!-- directive table: generated from io.portico.nginx.DirectiveTable -->\n";
    static final String END = "<!-- end of directive table -->";

    @Test
    void theDocsTableIsTheCodesTable() throws Exception {
        Path doc = Path.of("docs/from-nginx.md");
        String text = Files.readString(doc);
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        assertThat(start).as("the table's start marker").isNotNegative();
        assertThat(end).as("the table's end marker").isGreaterThan(start);
        String expected = DirectiveTable.markdown();
        if (Boolean.getBoolean("import.doc.update")) {
            Files.writeString(doc, text.substring(0, start + START.length()) + expected + text.substring(end));
            return;
        }
        assertThat(text.substring(start + START.length(), end)).isEqualTo(expected);
    }
}
