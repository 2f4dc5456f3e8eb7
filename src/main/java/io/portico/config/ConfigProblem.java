package io.portico.config;

/** One thing wrong with a configuration file, located by file and line. */
public record ConfigProblem(String file, int line, String key, String message) {

    /** {@code FILE:LINE: key.path: what is wrong (expected: ...)}. */
    @Override
    public String toString() {
        String where = line > 0 ? file + ":" + line : file;
        return key.isEmpty() ? where + ": " + message : where + ": " + key + ": " + message;
    }
}
