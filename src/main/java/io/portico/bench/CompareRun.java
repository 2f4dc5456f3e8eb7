package io.portico.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the same load against A and B in interleaved rounds (A B A B ...), on the same client loops, so drift in
 * the machine (other load, CPU frequency, caches) hits both sides alike. Probes both first and refuses ratios when
 * they answer differently or when the client, not the servers, set the pace.
 */
public final class CompareRun {

    /** A client loop busier than this was the bottleneck: its numbers measure the client. */
    static final double CLIENT_BUSY_LIMIT = 0.9;

    private final BenchOptions options;
    private final RequestTarget a;
    private final RequestTarget b;
    private final int rounds;
    private final ClientLoops loops;
    private final PrintWriter progress;
    private final PrintWriter notices;
    private RoundObserver observer = new RoundObserver() { };

    /** Told when each round starts and ends, on the caller's thread (e.g. to read the servers' CPU around it). */
    public interface RoundObserver {
        default void started(boolean b) {
        }

        default void finished(boolean b) {
        }
    }

    public CompareRun(BenchOptions options, RequestTarget a, RequestTarget b, int rounds, ClientLoops loops,
            PrintWriter progress, PrintWriter notices) {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds: %s (expected: > 0)".formatted(rounds));
        }
        this.options = options;
        this.a = a;
        this.b = b;
        this.rounds = rounds;
        this.loops = loops;
        this.progress = progress;
        this.notices = notices;
    }

    public CompareRun observedBy(RoundObserver o) {
        this.observer = o;
        return this;
    }

    public CompareResult run(String nameA, String nameB) throws InterruptedException {
        ResponseProbe.Answer answerA = ResponseProbe.probe(a, options.timeout(), options.insecure());
        ResponseProbe.Answer answerB = ResponseProbe.probe(b, options.timeout(), options.insecure());
        String refusal = ResponseProbe.difference(answerA, answerB);
        List<BenchResult> resultsA = new ArrayList<>();
        List<BenchResult> resultsB = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            observer.started(false);
            resultsA.add(runOne(a, nameA, round));
            observer.finished(false);
            observer.started(true);
            resultsB.add(runOne(b, nameB, round));
            observer.finished(true);
        }
        if (refusal == null) {
            refusal = clientBound(resultsA, nameA);
        }
        if (refusal == null) {
            refusal = clientBound(resultsB, nameB);
        }
        return new CompareResult(nameA, nameB, resultsA, resultsB, refusal);
    }

    private BenchResult runOne(RequestTarget target, String name, int round) throws InterruptedException {
        if (notices != null) {
            notices.printf("round %d/%d: %s (%s)%n", round, rounds, name, target.uri());
            notices.flush();
        }
        return new BenchRun(options.withTargets(List.of(target)), loops, progress, notices).run();
    }

    /** Why the client, not the server, limited this side's figures, or null. */
    static String clientBound(List<BenchResult> results, String name) {
        for (BenchResult r : results) {
            if (r.tally().clientSideErrors() > 0) {
                return "the client hit its own limits while loading %s (%d client-side errors: %s)".formatted(name,
                        r.tally().clientSideErrors(), r.tally().errorsByClass().keySet().stream()
                                .filter(ErrorClass::clientSide).map(ErrorClass::label).toList());
            }
            if (r.clientBusy() >= CLIENT_BUSY_LIMIT) {
                return ("the client was the bottleneck while loading %s (a client event loop was %.0f%% busy): "
                        + "add --threads, or run the client on another machine").formatted(name,
                        100 * r.clientBusy());
            }
        }
        return null;
    }
}
