package io.portico.bench;

import java.time.Duration;
import java.util.Locale;

/** Parses the durations users type: {@code 30s}, {@code 5m}, {@code 250ms}, {@code 1h}, {@code 10} (seconds). */
public final class DurationText {

    private DurationText() {
    }

    /** Parses {@code text}; a bare number is seconds. */
    public static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            if (t.endsWith("us")) {
                return Duration.ofNanos(Long.parseLong(t.substring(0, t.length() - 2)) * 1000);
            }
            char unit = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
            String number = Character.isDigit(unit) ? t : t.substring(0, t.length() - 1);
            double value = Double.parseDouble(number);
            double seconds = switch (unit) {
                case 's' -> value;
                case 'm' -> value * 60;
                case 'h' -> value * 3600;
                default -> {
                    if (!Character.isDigit(unit)) {
                        throw new IllegalArgumentException();
                    }
                    yield value;
                }
            };
            if (seconds < 0) {
                throw new IllegalArgumentException();
            }
            return Duration.ofNanos((long) (seconds * 1e9));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "duration: %s (expected: a number with unit ms, s, m or h, e.g. 30s)".formatted(text));
        }
    }
}
