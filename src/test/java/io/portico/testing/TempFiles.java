package io.portico.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Portico's temp files (request bodies, parked responses) that this JVM holds open. They are opened
 * DELETE_ON_CLOSE, which the JDK on Linux does by unlinking the file at once: it never shows in the directory, only
 * among the process's descriptors ({@code /tmp/portico-response-1.tmp (deleted)}) until it is closed, which is what
 * frees its disk space. Counting the directory's files would always find none.
 */
public final class TempFiles {
    private TempFiles() {}

    /** How many files whose name starts with {@code prefix} this process has open. */
    public static long open(String prefix) throws IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).getFileName().toString().startsWith(prefix);
                } catch (IOException | UnsupportedOperationException gone) {
                    return false; // closed meanwhile, or the listing's own descriptor
                }
            }).count();
        }
    }
}
