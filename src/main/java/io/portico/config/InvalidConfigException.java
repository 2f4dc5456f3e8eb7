package io.portico.config;

import java.util.List;
import java.util.stream.Collectors;

/** A configuration that cannot be used, with every problem found in it, not just the first. */
public final class InvalidConfigException extends Exception {
    private final List<ConfigProblem> problems;

    public InvalidConfigException(List<ConfigProblem> problems) {
        super(problems.stream().map(ConfigProblem::toString).collect(Collectors.joining("\n")));
        this.problems = List.copyOf(problems);
    }

    public List<ConfigProblem> problems() {
        return problems;
    }
}
