package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.RateLimitZoneConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Bounded memory without free tokens: idle keys go only once refilled, hot keys outlive a spray of new ones. */
class ZoneMemoryBoundsTest {
    private static final ClientKey HOT = ClientKey.ipv4(0x7f000001);

    private final ManualClock clock = new ManualClock();

    @Test
    void aKeyIsForgottenExactlyWhenItsBucketHasRefilled() {
        RateLimitZoneConfig zone = Zones.nodelay(50, SECOND, 20);
        assertThat(ZoneShape.of(zone).forgetAfterNanos()).isEqualTo(420_000_000L);
        CompactZoneStore store = new CompactZoneStore(ZoneShape.of(zone), 100, clock, Runnable::run);
        for (int i = 0; i < 21; i++) {
            store.take(HOT, clock.nanoTime());
        }
        clock.advanceNanos(420_000_000L - 1);
        store.cleanUp();
        assertThat(store.holds(HOT)).isTrue();
        clock.advanceNanos(1);
        store.cleanUp();
        assertThat(store.holds(HOT)).isFalse();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void expiryNeverHandsOutTokensEarly(StoreKind kind) {
        ZoneStore store = kind.create(Zones.nodelay(10, SECOND, 5), clock);
        ClientKey early = ClientKey.ipv4(1);
        ClientKey late = ClientKey.ipv4(2);
        takeMany(store, early, 6);
        takeMany(store, late, 6);
        clock.advanceNanos(600_000_000L - 1);
        store.cleanUp();
        assertThat(takeMany(store, early, 7)).as("5.99 tokens refilled, no free one").isEqualTo(5);
        clock.advanceNanos(1);
        store.cleanUp();
        assertThat(takeMany(store, late, 7)).as("forgotten once full: same as a full bucket").isEqualTo(6);
    }

    private int takeMany(ZoneStore store, ClientKey key, int n) {
        int passed = 0;
        for (int i = 0; i < n; i++) {
            passed += store.take(key, clock.nanoTime()) >= 0 ? 1 : 0;
        }
        return passed;
    }

    @ParameterizedTest
    @EnumSource(value = StoreKind.class, names = "REDIS", mode = EnumSource.Mode.EXCLUDE) // Redis has no max-clients
    void aHotKeyKeepsItsStateUnderASprayOfNewAddresses(StoreKind kind) {
        RateLimitZoneConfig zone = Zones.withMaxClients(Zones.nodelay(1, SECOND, 5), 100);
        ZoneStore store = kind.create(zone, clock);
        int passed = 0;
        for (int i = 0; i < 20; i++) {
            passed += store.take(HOT, clock.nanoTime()) >= 0 ? 1 : 0;
        }
        for (int sprayed = 0; sprayed < 5_000; sprayed++) {
            store.take(ClientKey.ipv4(0x0a000000 + sprayed), clock.nanoTime());
            if (sprayed % 10 == 0) {
                passed += store.take(HOT, clock.nanoTime()) >= 0 ? 1 : 0;
            }
        }
        store.cleanUp();
        assertThat(passed).as("the hot client never got a fresh bucket").isEqualTo(6);
        assertThat(store.size()).isLessThanOrEqualTo(100);
        assertThat(store.evictions()).isGreaterThan(4_000);
    }
}
