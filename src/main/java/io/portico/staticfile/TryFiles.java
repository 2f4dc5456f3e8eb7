package io.portico.staticfile;

import java.util.ArrayList;
import java.util.List;

/**
 * nginx's try_files, parsed once per location: the candidates tried in order ({@code $uri} is the request path
 * below the location directory) and what to do when none exists: a named upstream ({@code @app}) or, with a last
 * {@code =CODE} as in nginx, the error page of that status. No try-files means "{@code $uri} as a file or a
 * directory", the plain static behaviour.
 */
record TryFiles(List<Candidate> candidates, Fallback fallback) {

    enum Mode {
        /** A regular file only. */
        FILE,
        /** A directory only (the entry ends with '/'): its index, or its listing with autoindex. */
        DIRECTORY,
        /** Either: the behaviour without try-files, where a directory with nothing to show is a 403. */
        ANY
    }

    record Candidate(String template, Mode mode) {
        /** The candidate's path for a request path ({@code "/" + relative}); not yet checked by the resolver. */
        String expand(String uri) {
            return template.equals("$uri") ? uri : template.replace("$uri", uri);
        }
    }

    sealed interface Fallback {
        record Named(String name) implements Fallback {}

        record Status(int code) implements Fallback {}
    }

    static final Fallback NOT_FOUND = new Fallback.Status(404);

    static TryFiles parse(List<String> entries) {
        if (entries.isEmpty()) {
            return new TryFiles(List.of(new Candidate("$uri", Mode.ANY)), NOT_FOUND);
        }
        List<Candidate> candidates = new ArrayList<>();
        for (int i = 0; i < entries.size() - 1; i++) {
            candidates.add(candidate(entries.get(i)));
        }
        String last = entries.get(entries.size() - 1);
        if (last.startsWith("@")) {
            return new TryFiles(List.copyOf(candidates), new Fallback.Named(last.substring(1)));
        }
        if (last.startsWith("=")) {
            int code = Integer.parseInt(last.substring(1).trim());
            if (code < 400 || code > 599) {
                throw new IllegalArgumentException("tryFiles: " + last + " (expected: =400..=599)");
            }
            return new TryFiles(List.copyOf(candidates), new Fallback.Status(code));
        }
        candidates.add(candidate(last));
        return new TryFiles(List.copyOf(candidates), NOT_FOUND);
    }

    private static Candidate candidate(String entry) {
        return new Candidate(entry, entry.endsWith("/") ? Mode.DIRECTORY : Mode.FILE);
    }

    boolean hasNamedFallback() {
        return fallback instanceof Fallback.Named;
    }
}
