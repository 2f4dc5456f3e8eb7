package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.MINUTE;
import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.RateLimitZoneConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** nginx limit_req timelines, request for request, at the store level ("n @t": n requests at t ms, one client). */
class ZoneTimelineTest {
    private static final ClientKey CLIENT = ClientKey.ipv4(0x7f000001);
    private static final long REJECTED = -1;

    private final ManualClock clock = new ManualClock();

    private ZoneStore store(StoreKind kind, RateLimitZoneConfig zone) {
        return kind.create(zone, clock);
    }

    /** n requests at t ms: each one's wait in ms (0 = at once), or REJECTED. */
    private List<Long> at(ZoneStore store, ClientKey key, long millis, int n) {
        clock.atMillis(millis);
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long verdict = store.take(key, clock.nanoTime());
            out.add(verdict < 0 ? REJECTED : TimeUnit.NANOSECONDS.toMillis(verdict));
        }
        return out;
    }

    private int passed(ZoneStore store, ClientKey key, long millis, int n) {
        return (int) at(store, key, millis, n).stream().filter(w -> w >= 0).count();
    }

    private int everyMillis(ZoneStore store, ClientKey key, long step, int n) {
        int passed = 0;
        for (int i = 0; i < n; i++) {
            passed += passed(store, key, i * step, 1);
        }
        return passed;
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void twoPerSecondBurstOne(StoreKind kind) {
        ZoneStore store = store(kind, Zones.nodelay(2, SECOND, 1));
        assertThat(at(store, CLIENT, 0, 3)).containsExactly(0L, 0L, REJECTED);
        assertThat(at(store, CLIENT, 0, 2)).containsExactly(REJECTED, REJECTED);
        assertThat(at(store, CLIENT, 600, 1)).containsExactly(0L);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void tenPerSecondBurstFive(StoreKind kind) {
        RateLimitZoneConfig zone = Zones.nodelay(10, SECOND, 5);
        assertThat(passed(store(kind, zone), CLIENT, 0, 20)).isEqualTo(6);
        assertThat(everyMillis(store(kind, zone), CLIENT, 20, 500)).isEqualTo(105);
        ZoneStore store = store(kind, zone);
        int passed = passed(store, CLIENT, 0, 6) + passed(store, CLIENT, 1000, 6) + passed(store, CLIENT, 1100, 6);
        assertThat(passed).isEqualTo(13);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void tenPerSecondNoBurst(StoreKind kind) {
        RateLimitZoneConfig zone = Zones.delayed(10, SECOND, 0, 0);
        assertThat(everyMillis(store(kind, zone), CLIENT, 50, 20)).isEqualTo(10);
        assertThat(everyMillis(store(kind, zone), CLIENT, 99, 10)).isEqualTo(5);
        assertThat(everyMillis(store(kind, zone), CLIENT, 100, 10)).isEqualTo(10);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void delayModePacesTheBurst(StoreKind kind) {
        ZoneStore store = store(kind, Zones.delayed(1, SECOND, 5, 0));
        assertThat(at(store, CLIENT, 0, 7)).containsExactly(0L, 1000L, 2000L, 3000L, 4000L, 5000L, REJECTED);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void twoStageDelayPerMinute(StoreKind kind) {
        ZoneStore store = store(kind, Zones.delayed(30, MINUTE, 2, 1));
        assertThat(at(store, CLIENT, 0, 4)).containsExactly(0L, 0L, 2000L, REJECTED);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void twoStageDelay(StoreKind kind) {
        ZoneStore store = store(kind, Zones.delayed(5, SECOND, 10, 4));
        assertThat(at(store, CLIENT, 0, 15)).containsExactly(
                0L, 0L, 0L, 0L, 0L, 200L, 400L, 600L, 800L, 1000L, 1200L, REJECTED, REJECTED, REJECTED, REJECTED);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void hundredPerSecondBurstTwenty(StoreKind kind) {
        ZoneStore store = store(kind, Zones.nodelay(100, SECOND, 20));
        assertThat(passed(store, CLIENT, 0, 30) + passed(store, CLIENT, 100, 30)).isEqualTo(31);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void clientsHaveSeparateBuckets(StoreKind kind) {
        ZoneStore store = store(kind, Zones.nodelay(10, SECOND, 5));
        ClientKey first = ClientKey.ipv4(0x7f000001);
        ClientKey second = ClientKey.ipv4(0x7f000002);
        assertThat(passed(store, first, 0, 20)).isEqualTo(6);
        assertThat(passed(store, second, 0, 20)).isEqualTo(6);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void rejectionSaysWhenARequestWouldPass(StoreKind kind) {
        ZoneStore store = store(kind, Zones.nodelay(2, SECOND, 1));
        at(store, CLIENT, 0, 2);
        clock.atMillis(100);
        assertThat(-store.take(CLIENT, clock.nanoTime())).isEqualTo(TimeUnit.MILLISECONDS.toNanos(400));
        clock.atMillis(500);
        assertThat(store.take(CLIENT, clock.nanoTime())).isZero();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void giveBackUndoesATake(StoreKind kind) {
        ZoneStore store = store(kind, Zones.nodelay(2, SECOND, 1));
        at(store, CLIENT, 0, 1);
        store.giveBack(CLIENT, clock.nanoTime());
        assertThat(at(store, CLIENT, 0, 3)).containsExactly(0L, 0L, REJECTED);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void exactRatePerMinute(StoreKind kind) {
        ZoneStore store = store(kind, Zones.nodelay(1, MINUTE, 0));
        assertThat(at(store, CLIENT, 0, 2)).containsExactly(0L, REJECTED);
        assertThat(at(store, CLIENT, 59_999, 1)).containsExactly(REJECTED);
        assertThat(at(store, CLIENT, 60_000, 1)).containsExactly(0L);
    }
}
