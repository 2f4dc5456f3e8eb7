package io.portico.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The local process listening on a TCP port, found through {@code /proc} as {@code ss -ltnp} finds it: the listening
 * socket's inode from {@code /proc/net/tcp} and {@code tcp6}, then the process holding that inode among its file
 * descriptors. Linux only, and only processes this user may inspect; otherwise nothing.
 */
final class ListeningProcess {
    /** The state column of a listening socket in /proc/net/tcp. */
    private static final String LISTEN = "0A";

    private ListeningProcess() {}

    static OptionalLong of(int port) {
        Set<String> inodes = new HashSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            inodes.addAll(listeningInodes(Path.of(table), port));
        }
        if (inodes.isEmpty()) {
            return OptionalLong.empty();
        }
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                if (holds(proc, inodes)) {
                    return OptionalLong.of(Long.parseLong(proc.getFileName().toString()));
                }
            }
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    /** Inodes of the sockets listening on {@code port} in one of /proc/net's tables. */
    static Set<String> listeningInodes(Path table, int port) {
        Set<String> out = new HashSet<>();
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        try {
            for (String line : Files.readAllLines(table)) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals(LISTEN)) {
                    out.add(f[9]);
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    private static boolean holds(Path proc, Set<String> inodes) {
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
            for (Path fd : fds) {
                String link;
                try {
                    link = Files.readSymbolicLink(fd).toString();
                } catch (IOException gone) {
                    continue;
                }
                if (link.startsWith("socket:[") && inodes.contains(link.substring(8, link.length() - 1))) {
                    return true;
                }
            }
        } catch (IOException | SecurityException e) {
            return false; // another user's process, or one that ended
        }
        return false;
    }
}
