package io.portico.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The CPU the local server processes of a comparison spent on each side's rounds, read from {@code /proc/PID/stat}
 * (user + system) around every round, so that a report can say what a response cost each process: the reason a
 * ratio is what it is when the processes share the machine's cores. Linux only; elsewhere it says nothing.
 */
public final class ServerCpu implements CompareRun.RoundObserver {

    /** USER_HZ: the unit of /proc/PID/stat's times, 100 on every Linux the JVM runs on. */
    private static final double TICKS_PER_SECOND = 100;

    private final List<String> names;
    private final long[] pids;
    private final double[][] seconds; // [side][process]
    private double[] startedAt;
    private boolean readable = true;

    /** {@code names} and {@code pids}: the processes to watch, in the order the note names them. */
    ServerCpu(List<String> names, long... pids) {
        this.names = List.copyOf(names);
        this.pids = pids.clone();
        this.seconds = new double[2][pids.length];
    }

    /**
     * For a plain compare of two loopback targets: the local processes listening on their ports (one when both are
     * the same process), or empty when /proc does not show them (another user's, another machine's, not Linux).
     */
    public static Optional<ServerCpu> listeningOn(RequestTarget a, RequestTarget b) {
        if (!SharedMachine.loopback(a.host()) || !SharedMachine.loopback(b.host())) {
            return Optional.empty();
        }
        OptionalLong pa = ListeningProcess.of(a.port());
        OptionalLong pb = ListeningProcess.of(b.port());
        if (pa.isEmpty() || pb.isEmpty()) {
            return Optional.empty();
        }
        if (pa.getAsLong() == pb.getAsLong()) {
            return Optional.of(new ServerCpu(List.of("the server (pid " + pa.getAsLong() + ")"),
                    pa.getAsLong()));
        }
        return Optional.of(new ServerCpu(List.of("A's server (pid " + pa.getAsLong() + ")",
                "B's server (pid " + pb.getAsLong() + ")"), pa.getAsLong(), pb.getAsLong()));
    }

    @Override
    public void started(boolean b) {
        startedAt = read();
    }

    @Override
    public void finished(boolean b) {
        double[] now = read();
        if (startedAt == null || now == null) {
            readable = false;
            return;
        }
        for (int i = 0; i < pids.length; i++) {
            seconds[b ? 1 : 0][i] += now[i] - startedAt[i];
        }
    }

    /** {@code Server CPU per response (/proc): direct: demo app 95 us; proxied: demo app 90 us + Portico 150 us}. */
    public String note(CompareResult c) {
        if (!readable) {
            return null;
        }
        return "Server CPU per response (user + system, /proc, around each round): " + c.nameA() + ": "
                + side(0, c.a().tally().responses()) + "; " + c.nameB() + ": " + side(1, c.b().tally().responses())
                + ".";
    }

    private String side(int side, long responses) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < pids.length; i++) {
            parts.add(responses == 0 ? names.get(i) + " n/a"
                    : String.format(Locale.ROOT, "%s %.0f us", names.get(i), seconds[side][i] * 1e6 / responses));
        }
        return String.join(" + ", parts);
    }

    private double[] read() {
        double[] v = new double[pids.length];
        for (int i = 0; i < pids.length; i++) {
            v[i] = seconds(pids[i]);
            if (v[i] < 0) {
                return null;
            }
        }
        return v;
    }

    /** User + system CPU seconds of {@code pid} so far, or -1 when /proc does not tell. */
    static double seconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // the command name (field 2) may hold spaces and parentheses: count fields after its closing one
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
