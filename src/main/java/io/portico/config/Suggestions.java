package io.portico.config;

import java.util.Collection;
import java.util.Optional;

/** "Did you mean": the known name closest to a misspelt one, by edit distance. */
public final class Suggestions {
    private Suggestions() {}

    public static Optional<String> closest(String wrong, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(wrong.toLowerCase(), k.toLowerCase());
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        int allowed = Math.max(2, wrong.length() / 3);
        return bestDistance <= allowed ? Optional.ofNullable(best) : Optional.empty();
    }

    static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
