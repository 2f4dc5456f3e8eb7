package io.portico.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The {@code pid-file} that {@code serve} writes once it listens and removes at exit, and that {@code portico reload}
 * reads, as nginx's {@code pid}. A file that another process has since overwritten is not removed.
 */
final class PidFile {
    private final Path path;
    private final long pid;

    private PidFile(Path path, long pid) {
        this.path = path;
        this.pid = pid;
    }

    /** Writes this process's id to {@code path}, creating its folder if needed. */
    static PidFile write(Path path) throws IOException {
        long pid = ProcessHandle.current().pid();
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.writeString(path, pid + "\n");
        return new PidFile(path, pid);
    }

    /** The process id in {@code path}; empty when it has no number. */
    static Optional<Long> read(Path path) throws IOException {
        String text = Files.readString(path).trim();
        try {
            return Optional.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    void remove() {
        try {
            if (read(path).filter(p -> p == pid).isPresent()) {
                Files.delete(path);
            }
        } catch (IOException e) {
            // gone already, or unreadable: nothing of ours to remove
        }
    }
}
