package io.portico.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The client's open-file limit. Java cannot raise the soft limit without native code, so when a run needs more
 * descriptors than allowed the user is told the {@code ulimit -n} fix instead.
 */
public final class FdLimit {

    private FdLimit() {
    }

    /** The soft limit from /proc/self/limits, else from the OS MXBean; empty when unknown or unlimited. */
    public static OptionalLong soft() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String[] f = line.substring("Max open files".length()).trim().split("\\s+");
                    return f[0].equals("unlimited") ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(f[0]));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: fall through to the MXBean
        }
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            return OptionalLong.of(os.getMaxFileDescriptorCount());
        }
        return OptionalLong.empty();
    }

    /** Descriptors open now, or -1 when unknown. */
    public static long open() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            return os.getOpenFileDescriptorCount();
        }
        return -1;
    }

    /** A warning when {@code connections} won't fit in the limit (with what is already open), else null. */
    public static String check(int connections, OptionalLong limit, long openNow) {
        if (limit.isEmpty()) {
            return null;
        }
        long needed = connections + Math.max(0, openNow) + 16;
        if (needed <= limit.getAsLong()) {
            return null;
        }
        return ("warning: -c %d needs about %d file descriptors but this process may open only %d: the client will "
                + "fail with 'Too many open files' (a client limit, not the server's). Fix: ulimit -n %d (or lower -c)")
                .formatted(connections, needed, limit.getAsLong(), Math.max(65536, needed * 2));
    }
}
