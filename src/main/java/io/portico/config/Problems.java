package io.portico.config;

import com.typesafe.config.ConfigOrigin;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Collects problems while a configuration is read, so that all of them are reported together. */
final class Problems {
    private final String fileName;
    private final List<ConfigProblem> list = new ArrayList<>();

    Problems(String fileName) {
        this.fileName = fileName;
    }

    void add(ConfigOrigin origin, String key, String message) {
        String file = fileName;
        int line = -1;
        if (origin != null) {
            line = origin.lineNumber();
            if (origin.filename() == null && origin.resource() != null) {
                file = origin.resource();
            }
        }
        list.add(new ConfigProblem(file, line, key, message));
    }

    boolean isEmpty() {
        return list.isEmpty();
    }

    List<ConfigProblem> sorted() {
        List<ConfigProblem> out = new ArrayList<>(list);
        out.sort(Comparator.comparing(ConfigProblem::file).thenComparingInt(ConfigProblem::line));
        return out;
    }
}
