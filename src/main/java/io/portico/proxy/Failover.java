package io.portico.proxy;

/**
 * What to do after an attempt failed before the response head, like nginx's default
 * {@code proxy_next_upstream error timeout} within {@code retries}:
 * <ul>
 *   <li>nothing was sent (connect error or connect timeout): the next server, whatever the method;</li>
 *   <li>the request went out (closed, reset, read or send timeout): the next server only for an idempotent method
 *       whose body can be sent again (none, or buffered), so a POST never reaches two app servers;</li>
 *   <li>the keep-alive race (a reused connection closed before any answer): once, a fresh connection to the same
 *       server, if the request can be replayed; this is not a new try nor the server's fault;</li>
 *   <li>a malformed answer: no retry (nginx's {@code invalid_header} is not in its default either).</li>
 * </ul>
 * Plain object, one per exchange, event loop only.
 */
final class Failover {
    enum Next { SAME_SERVER_FRESH, NEXT_SERVER, GIVE_UP }

    private final int retries;
    private final boolean idempotent;
    private int tries;
    private boolean staleRetried;

    Failover(int retries, boolean idempotent) {
        this.retries = retries;
        this.idempotent = idempotent;
    }

    /** A server was chosen for a new try. */
    void tried() {
        tries++;
    }

    /**
     * @param reusedConnection the failed attempt ran on a kept-alive connection
     * @param replayable the request body can be sent again (none, buffered, or not a byte of it sent yet)
     * @param bodyBuffered the body was buffered whole: a replay is exactly the same request
     */
    Next after(UpstreamFailure.Kind failure, boolean reusedConnection, boolean replayable, boolean bodyBuffered) {
        return switch (failure) {
            case CONNECT_ERROR, CONNECT_TIMEOUT -> nextServerIf(true);
            case CLOSED -> {
                if (reusedConnection && !staleRetried && replayable && (idempotent || bodyBuffered)) {
                    staleRetried = true;
                    yield Next.SAME_SERVER_FRESH;
                }
                yield nextServerIf(idempotent && replayable);
            }
            case READ_TIMEOUT, SEND_TIMEOUT -> nextServerIf(idempotent && replayable);
            case MALFORMED, NO_LIVE_UPSTREAM, QUEUE_FULL -> Next.GIVE_UP;
        };
    }

    private Next nextServerIf(boolean safe) {
        return safe && tries <= retries ? Next.NEXT_SERVER : Next.GIVE_UP;
    }
}
