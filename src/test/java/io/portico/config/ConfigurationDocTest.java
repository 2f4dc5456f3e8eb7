package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/configuration.md stays true to reference.conf: every key there is documented. */
class ConfigurationDocTest {

    @Test
    void everyReferenceKeyIsDocumented() throws Exception {
        String doc = Files.readString(Path.of("docs/configuration.md"));
        Config reference = ConfigFactory.parseResources(ConfigLoader.class, "/reference.conf")
                .resolve().getConfig("portico");
        List<String> missing = new ArrayList<>();
        for (String leaf : leaves(reference)) {
            if (!documented(doc, leaf)) {
                missing.add(leaf);
            }
        }
        assertThat(missing).as("keys of reference.conf missing from docs/configuration.md").isEmpty();
    }

    /** Every key path, including those whose default is null or an empty object. */
    private static List<String> leaves(Config config) {
        List<String> out = new ArrayList<>();
        walk(config.root(), "", out);
        return out;
    }

    private static void walk(com.typesafe.config.ConfigObject object, String prefix, List<String> out) {
        object.forEach((key, value) -> {
            String path = prefix.isEmpty() ? key : prefix + "." + key;
            if (value.valueType() == ConfigValueType.OBJECT && !((com.typesafe.config.ConfigObject) value).isEmpty()) {
                walk((com.typesafe.config.ConfigObject) value, path, out);
            } else {
                out.add(path);
            }
        });
    }

    /** Documented when some suffix of its path stands in backticks: `max-size`, `cache.max-size`. */
    private static boolean documented(String doc, String path) {
        String[] parts = path.split("\\.");
        for (int i = parts.length - 1; i >= 0; i--) {
            String suffix = String.join(".", java.util.Arrays.copyOfRange(parts, i, parts.length));
            if (doc.contains("`" + suffix + "`")) {
                return true;
            }
        }
        return false;
    }
}
