package io.portico.ratelimit;

import io.portico.config.LimitConnConfig;
import io.portico.config.RateLimitZoneConfig;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** The one line {@code portico check} prints for a zone: what a client may do, and what the zone costs. */
final class ZoneDescription {
    private static final long MIB = 1024 * 1024;

    private ZoneDescription() {}

    static String of(RateLimitZoneConfig zone) {
        ZoneShape shape = ZoneShape.of(zone);
        StringBuilder line = new StringBuilder(zone.name()).append(": ");
        long atOnce = shape.servedAtOnce();
        line.append(String.format(Locale.US, "%,d %s at once, ", atOnce, atOnce == 1 ? "request" : "requests"));
        if (shape.paced() > 0) {
            line.append(String.format(Locale.US, "the next %,d delayed (at most %s), ",
                    shape.paced(), duration(shape.longestWaitNanos())));
        }
        line.append("then 1 every ").append(duration(shape.intervalNanos()));
        line.append("; a client is forgotten after ").append(duration(shape.forgetAfterNanos())).append(" idle");
        if (zone.store().shared()) {
            line.append("; shared in Redis at ").append(RedisConnections.redacted(zone.store().redis()))
                    .append(" (decided within ").append(duration(zone.store().timeout().toNanos()))
                    .append(", else ").append(switch (zone.store().onFailure()) {
                        case LOCAL -> "limited by this instance alone";
                        case ALLOW -> "allowed";
                        case REJECT -> "rejected";
                    }).append(')');
        } else {
            long mib = Math.max(1, (CompactZoneStore.fullBytes(zone.maxClients()) + MIB / 2) / MIB);
            line.append(String.format(Locale.US, "; at most %,d clients, about %,d MiB", zone.maxClients(), mib));
        }
        if (zone.dryRun()) {
            line.append("; dry run: counts, limits nothing");
        }
        return line.toString();
    }

    static String of(LimitConnConfig zone) {
        String line = String.format(Locale.US, "%s: at most %,d requests in progress per %s, the rest answered %d",
                zone.name(), zone.max(), zone.key(), zone.status());
        if (!zone.store().shared()) {
            return line;
        }
        return line + "; counted across instances in Redis at " + RedisConnections.redacted(zone.store().redis())
                + " (a dead instance's slots freed after " + duration(zone.lease().toNanos()) + "; decided within "
                + duration(zone.store().timeout().toNanos()) + ", else " + switch (zone.store().onFailure()) {
                    case LOCAL -> "counted by this instance alone";
                    case ALLOW -> "allowed";
                    case REJECT -> "rejected";
                } + ")";
    }

    static String duration(long nanos) {
        if (nanos >= TimeUnit.MINUTES.toNanos(1) && nanos % TimeUnit.MINUTES.toNanos(1) == 0) {
            return TimeUnit.NANOSECONDS.toMinutes(nanos) + " min";
        }
        if (nanos >= TimeUnit.SECONDS.toNanos(1)) {
            return decimal(nanos, 9) + " s";
        }
        if (nanos >= TimeUnit.MILLISECONDS.toNanos(1)) {
            return decimal(nanos, 6) + " ms";
        }
        return decimal(nanos, 3) + " µs";
    }

    private static String decimal(long nanos, int scale) {
        return BigDecimal.valueOf(nanos, scale).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
