package io.portico.nginx;

import io.portico.config.ConfigLoader;
import io.portico.config.InvalidConfigException;
import io.portico.config.PorticoConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Test helper: writes an nginx file, imports it, loads the result as {@code portico check} does. */
final class Imports {
    private Imports() {}

    static NginxImport.Result translate(Path dir, String nginx) throws Exception {
        Path f = dir.resolve("nginx.conf");
        Files.writeString(f, nginx);
        return NginxImport.translate(f);
    }

    /** The generated file loaded by ConfigLoader; fails the test with the problems and the file if it does not load. */
    static PorticoConfig load(NginxImport.Result r, Path dir) {
        try {
            return ConfigLoader.parse(r.hocon(), dir.resolve("portico.conf").toString(), dir);
        } catch (InvalidConfigException e) {
            throw new AssertionError("generated configuration does not load: " + e.problems() + "\n" + r.hocon(), e);
        }
    }

    /** The unmapped items as "file:line directive-name", the shape the tests compare. */
    static List<String> unmapped(NginxImport.Result r) {
        return r.report().unmapped().stream()
                .map(i -> i.where() + " " + i.directive().split(" ", 2)[0].replace(";", ""))
                .toList();
    }

    static String reasons(NginxImport.Result r) {
        return String.join("\n", r.report().unmapped().stream().map(Report.Item::toString).toList());
    }
}
