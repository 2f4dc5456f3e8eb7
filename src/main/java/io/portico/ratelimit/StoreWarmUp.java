package io.portico.ratelimit;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.netty.util.concurrent.EventExecutor;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Each lane's first commands, run at start before the listeners accept: the zone's scripts loaded on every node
 * that decides (its server, or each master of a cluster), then a script that does nothing sent to each of them
 * through the path a decision takes (EVALSHA by key, the reply raced against a deadline on the lane's own loop).
 *
 * <p>Why: the first commands on a lane run Lettuce's code for the first time on that loop (class loading, the
 * first command on each node connection), and a loop busy with that for hundreds of milliseconds holds everything
 * else it runs, the zone's own store-timeout timer included. One run's first decision after start was held 432 ms,
 * its deadline running 136 ms late. The scripts are loaded here too, so a first decision is one round trip, not a
 * NOSCRIPT and a second one with the script's body.
 */
final class StoreWarmUp {
    /** Does nothing; sent by key, so a cluster routes it to the key's master as it routes a decision. */
    private static final RedisScript NOTHING = new RedisScript("return 0");
    /**
     * Twice to each node: the first is not loaded yet (NOSCRIPT, then its body: the path a promoted replica's first
     * decision takes), the second is the EVALSHA every later decision is.
     */
    private static final int ROUNDS = 2;
    /** The whole warm-up's bound, and each command's: as long as connecting may take. */
    private static final Duration BOUND = RedisConnections.CONNECT_TIMEOUT;

    /**
     * The client key of the warm-up of on-store-failure ({@link #onStoreFailure}). Its state is harmless even if a
     * client's key were equal to it: it is taken and given back in a zone no client has reached yet, which leaves
     * a bucket that admits as a new one does, and no slot.
     */
    static final ClientKey KEY = ClientKey.text("portico:warm-up");

    private StoreWarmUp() {}

    /**
     * Runs on each lane's loop what the zone's first store failure runs there, before the listeners accept: a
     * store-timeout that expires ({@link StoreDeadline}'s deadline branch, on the loop's timer), then
     * {@code decideWithout}, which applies on-store-failure to {@link #KEY} through the zone's own code and
     * undoes what it took. Why: otherwise that code first runs when Redis first fails, on a loop already holding
     * requests for store-timeout, and class loading and first calls there (the enum switch, the fallback bucket's
     * first entry in its Caffeine cache, its compare-and-set) delay every one of them. Nothing is asked of Redis
     * and nothing is counted as a failure (the zone's health is not told). Waits (off the loops: at start or
     * reload).
     */
    static void onStoreFailure(String zone, StoreConnection connection, Runnable decideWithout) {
        List<CompletableFuture<Void>> warmed = new ArrayList<>();
        for (StoreConnection.Lane lane : connection.lanes()) {
            EventExecutor loop = lane.loop();
            if (loop == null) { // Lettuce's own thread: no loop timer, Lettuce's command timeout bounds a command
                decideWithout.run();
                continue;
            }
            CompletableFuture<Void> done = new CompletableFuture<>();
            loop.execute(() -> StoreDeadline.race(new CompletableFuture<Void>(), loop, 0, reply -> reply,
                    timedOut -> {
                        decideWithout.run();
                        return null;
                    }, late -> { }).whenComplete((v, failure) -> {
                        if (failure != null) {
                            done.completeExceptionally(failure);
                        } else {
                            done.complete(null);
                        }
                    }));
            warmed.add(done);
        }
        await(zone, warmed, "on-store-failure's warm-up failed");
    }

    /**
     * Warms every lane of {@code connection} with {@code scripts}, each lane from its own loop, and waits for them
     * (off the loops: at start or reload). {@code zone}: the zone's config key, for messages. A store that loaded
     * the scripts and answered at connect but fails this (a command it refuses, such as EVAL for a user without
     * the right) stops the start, as a store out of reach does.
     */
    static void warm(String zone, StoreConnection connection, List<RedisScript> scripts) {
        StoreConnection.Lane[] lanes = connection.lanes();
        List<CompletableFuture<Void>> warmed = new ArrayList<>();
        for (int i = 0; i < lanes.length; i++) {
            int lane = i;
            EventExecutor loop = lanes[i].loop();
            CompletableFuture<Void> done = new CompletableFuture<>();
            Runnable start = () -> lane(connection, lane, scripts, loop).whenComplete((v, failure) -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                } else {
                    done.complete(null);
                }
            });
            if (loop == null) {
                start.run();
            } else {
                loop.execute(start);
            }
            warmed.add(done);
        }
        await(zone, warmed, "its first commands failed");
    }

    private static void await(String zone, List<CompletableFuture<Void>> warmed, String failed) {
        try {
            CompletableFuture.allOf(warmed.toArray(CompletableFuture[]::new))
                    .get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(zone + ".store: interrupted while warming its connections", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(zone + ".store: " + failed + " (" + RedisConnections.reason(e) + ")",
                    e);
        }
    }

    /** On {@code loop} (or the caller's thread without one): loads, then the rounds, one after another. */
    private static CompletableFuture<Void> lane(StoreConnection connection, int lane, List<RedisScript> scripts,
            EventExecutor loop) {
        RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(lane);
        StoreConnection.Lane of = connection.lanes()[lane];
        List<CompletableFuture<String>> loads = new ArrayList<>();
        for (RedisScript script : scripts) {
            if (of.cluster() == null) {
                loads.add(script.load(commands));
            } else {
                // on each master's own connection, the one a decision for its slots takes: Lettuce's cluster-wide
                // SCRIPT LOAD asks every node, replicas too, each over one more connection opened for it
                for (RedisClusterNode node : masters(of.cluster().getPartitions())) {
                    loads.add(of.cluster().getConnectionAsync(node.getUri().getHost(), node.getUri().getPort())
                            .thenCompose(master -> script.load(master.async())));
                }
            }
        }
        CompletableFuture<?> chain = CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
        for (byte[] key : keyPerNode(of)) {
            for (int round = 0; round < ROUNDS; round++) {
                chain = chain.thenCompose(v -> StoreDeadline.race(NOTHING.run(commands, key), loop,
                        BOUND.toNanos(), reply -> reply, failure -> {
                            throw new CompletionException(failure);
                        }, late -> { }));
            }
        }
        return chain.thenApply(v -> null);
    }

    /** A key for each node that decides: one for a server, one in a slot of each master for a cluster. */
    private static List<byte[]> keyPerNode(StoreConnection.Lane lane) {
        if (lane.cluster() == null) {
            return List.of(key(0));
        }
        Partitions partitions = lane.cluster().getPartitions();
        int masters = masters(partitions).size();
        Map<String, byte[]> byNode = new LinkedHashMap<>();
        for (int i = 0; byNode.size() < masters && i < SlotHash.SLOT_COUNT * 4; i++) {
            byte[] key = key(i);
            RedisClusterNode node = partitions.getMasterBySlot(SlotHash.getSlot(key));
            if (node != null) {
                byNode.putIfAbsent(node.getNodeId(), key);
            }
        }
        return List.copyOf(byNode.values());
    }

    private static List<RedisClusterNode> masters(Partitions partitions) {
        return partitions.stream().filter(n -> n.is(RedisClusterNode.NodeFlag.UPSTREAM)).toList();
    }

    /** Never a zone's key ({@code portico:rate-limit:...}, {@code portico:limit-conn:...}); never written. */
    private static byte[] key(int n) {
        return ("portico:warm-up:" + n).getBytes(StandardCharsets.US_ASCII);
    }
}
