package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A connection's memo charges the state the zone holds, never one it has dropped, and never lets the zone drop a
 * state before its bucket has refilled. Each {@link SlotMemo} here stands for one keep-alive connection.
 */
class SlotMemoTest {
    private static final ClientKey CLIENT = ClientKey.ipv4(0x7f000001);

    private final ManualClock clock = new ManualClock();

    /** 10r/s burst 5: T = 100 ms, a bucket of 6, forgotten 600 ms after its last access. */
    private CompactZoneStore store(long maxClients) {
        return new CompactZoneStore(ZoneShape.of(Zones.nodelay(10, SECOND, 5)), maxClients, clock, Runnable::run);
    }

    private int passed(CompactZoneStore store, ClientKey key, SlotMemo memo, int n) {
        int passed = 0;
        for (int i = 0; i < n; i++) {
            passed += store.take(key, clock.nanoTime(), memo) >= 0 ? 1 : 0;
        }
        return passed;
    }

    @Test
    void aRememberedChargeKeepsTheStateFromExpiringBeforeItRefills() {
        CompactZoneStore store = store(100);
        SlotMemo first = new SlotMemo();
        assertThat(passed(store, CLIENT, first, 6)).isEqualTo(6); // found at 0 ms; arrival time now 600 ms
        clock.atMillis(590);
        // backlog 10 ms: admitted, arrival time 700 ms, later than the 600 ms its entry was good for when found
        assertThat(passed(store, CLIENT, first, 1)).isEqualTo(1);
        clock.atMillis(650);
        store.cleanUp();
        assertThat(store.holds(CLIENT)).as("accessed at 590 ms by that charge: kept until 1190 ms").isTrue();
        assertThat(passed(store, CLIENT, new SlotMemo(), 6)).as("50 ms of backlog left: 5 of 6").isEqualTo(5);
    }

    @Test
    void aSlotEvictedWhileRememberedIsNeverChargedAgain() {
        // A zone of 1 is always crowded, which bypasses memos; here it never counts as crowded, as for a connection
        // whose memo is used just as a spray evicts its client
        CompactZoneStore store = new CompactZoneStore(ZoneShape.of(Zones.nodelay(10, SECOND, 5)), 1, clock,
                Runnable::run, Scheduler.disabledScheduler(), Long.MAX_VALUE);
        SlotMemo evicted = new SlotMemo();
        assertThat(passed(store, CLIENT, evicted, 1)).isEqualTo(1);
        // another key, stored again and again, grows more frequent than CLIENT until it takes its place
        ClientKey other = ClientKey.ipv4(0x7f000002);
        for (int i = 0; i < 100 && store.holds(CLIENT); i++) {
            store.take(other, clock.nanoTime());
            store.cleanUp();
        }
        assertThat(store.holds(CLIENT)).as("evicted for size").isFalse();
        assertThat(store.evictions()).isPositive();

        // a new connection of the same client starts a new state: the eviction lost the old one (as in nginx)
        assertThat(passed(store, CLIENT, new SlotMemo(), 6)).isEqualTo(6);
        assertThat(passed(store, CLIENT, evicted, 1)).as("the new state is empty; the evicted one had 5 left")
                .isZero();
    }

    @Test
    void connectionsOfOneClientShareOneState() {
        CompactZoneStore store = store(100);
        List<SlotMemo> connections = List.of(new SlotMemo(), new SlotMemo(), new SlotMemo());
        int passed = 0;
        for (int round = 0; round < 4; round++) {
            for (SlotMemo connection : connections) {
                passed += passed(store, CLIENT, connection, 1);
            }
        }
        assertThat(passed).isEqualTo(6);
        clock.atMillis(1_000); // each memo's slot is past the time it was found for: looked up again
        for (SlotMemo connection : connections) {
            passed += passed(store, CLIENT, connection, 2);
        }
        assertThat(passed).as("refilled to 6 after 1 s, then empty").isEqualTo(12);
    }

    @Test
    void aRememberedHotClientKeepsItsStateWhileOtherConnectionsSpray() {
        // 1r/s burst 5 in a zone of 100 clients; the clock stands still, so the hot client gets exactly 6
        CompactZoneStore store = new CompactZoneStore(
                ZoneShape.of(Zones.withMaxClients(Zones.nodelay(1, SECOND, 5), 100)), 100, clock, Runnable::run);
        SlotMemo hot = new SlotMemo();
        SlotMemo sprayer = new SlotMemo();
        int passed = passed(store, CLIENT, hot, 20);
        for (int sprayed = 0; sprayed < 20_000; sprayed++) {
            store.take(ClientKey.ipv4(0x0a000000 + sprayed), clock.nanoTime(), sprayer);
            if (sprayed % 10 == 0) {
                passed += passed(store, CLIENT, hot, 1); // looked up once in 64 through its memo
            }
        }
        store.cleanUp();
        assertThat(passed).as("the hot client's bucket was never reset by an eviction").isEqualTo(6);
        assertThat(store.holds(CLIENT)).isTrue();
        assertThat(store.evictions()).isGreaterThan(19_000);
    }

    @Test
    void aGiveBackUndoesTheChargeOnTheRememberedSlot() {
        CompactZoneStore store = store(100);
        SlotMemo memo = new SlotMemo();
        assertThat(passed(store, CLIENT, memo, 6)).isEqualTo(6);
        store.giveBack(CLIENT, clock.nanoTime(), memo);
        assertThat(passed(store, CLIENT, memo, 2)).isEqualTo(1);
    }

    @Test
    void rememberedSlotsRacingFromManyThreadsAdmitExactlyTheBucket() throws Exception {
        int threads = 32;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int trial = 0; trial < 20; trial++) {
                clock.atMillis(trial * 10_000L);
                // 10r/s burst 50: after one request from each connection the bucket holds 51 - 32 = 19, and each
                // memo may charge up to 5.1 s ahead of when it found the slot: the race is on remembered slots
                CompactZoneStore store =
                        new CompactZoneStore(ZoneShape.of(Zones.nodelay(10, SECOND, 50)), 100, clock, Runnable::run);
                List<SlotMemo> memos = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    SlotMemo memo = new SlotMemo();
                    assertThat(passed(store, CLIENT, memo, 1)).isEqualTo(1);
                    memos.add(memo);
                }
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<Integer>> results = new ArrayList<>();
                for (SlotMemo memo : memos) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return passed(store, CLIENT, memo, 1);
                    }));
                }
                int passed = 0;
                for (Future<Integer> result : results) {
                    passed += result.get(10, TimeUnit.SECONDS);
                }
                assertThat(passed).as("trial %d", trial).isEqualTo(19);
                assertThat(memos).as("no lookup was due").allMatch(memo -> memo.uses == 1);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
