package io.portico.ratelimit;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A Lua script the zones run in Redis, sent by its SHA1 (EVALSHA: the body crosses the wire once per server) and
 * by its body when that server does not know it yet (NOSCRIPT: a new server, a restarted one, a replica promoted
 * by a failover, whose script cache starts empty). A script is atomic in Redis: the decision and the charge it
 * makes are one step, whatever other instances send meanwhile.
 */
final class RedisScript {
    private final String body;
    private final String sha;

    RedisScript(String body) {
        this.body = body;
        try {
            this.sha = HexFormat.of().formatHex(
                    MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Runs the script on {@code key}'s server; an integer reply. May throw when Lettuce refuses the command before
     * sending it; never waits.
     */
    CompletableFuture<Long> run(RedisClusterAsyncCommands<byte[], byte[]> redis, byte[] key, byte[]... args) {
        byte[][] keys = {key};
        return redis.<Long>evalsha(sha, ScriptOutputType.INTEGER, keys, args).toCompletableFuture()
                .handle((reply, failure) -> failure == null ? CompletableFuture.completedFuture(reply)
                        : unknown(failure) ? redis.<Long>eval(body, ScriptOutputType.INTEGER, keys, args)
                                .toCompletableFuture()
                        : CompletableFuture.<Long>failedFuture(failure))
                .thenCompose(reply -> reply);
    }

    /** Its SHA1, by which EVALSHA names it (tests: whether a server has it). */
    String sha() {
        return sha;
    }

    /** Loads the script on {@code redis}'s server (SCRIPT LOAD), so that its first EVALSHA there finds it. */
    CompletableFuture<String> load(RedisClusterAsyncCommands<byte[], byte[]> redis) {
        return redis.scriptLoad(body.getBytes(StandardCharsets.UTF_8)).toCompletableFuture();
    }

    private static boolean unknown(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
                : failure;
        return cause instanceof RedisNoScriptException
                || cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT");
    }

    /** The decimal ASCII of {@code n}, as scripts read their arguments. */
    static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
