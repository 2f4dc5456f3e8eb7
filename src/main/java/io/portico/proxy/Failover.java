package io.portico.proxy;

/**
 * What to do after an attempt failed before the response head, like nginx's default
 * {@code proxy_next_upstream error timeout} within {@code retries}:
 * <ul>
 *   <li>nothing was sent (connect error or connect timeout): the next server, whatever the method;</li>
 *   <li>the request was written, even partly (closed, reset, read or send timeout): a non-idempotent request is
 *       never written again, whatever the connection's history (nginx's {@code non_idempotent} is off by
 *       default); an idempotent one goes to the next server when its body can be sent again (none, or
 *       buffered);</li>
 *   <li>the keep-alive race (a reused connection closed before any answer): an idempotent, replayable request is
 *       sent once more on a fresh connection to the same server, like nginx's extra try for a cached connection;
 *       this is not a new try nor the server's fault;</li>
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
     * @param written bytes of the request were handed to the connection (the upstream may have acted on them)
     * @param reusedConnection the failed attempt ran on a kept-alive connection
     * @param replayable the request body can be sent again (none, buffered, or not a byte of it sent yet)
     */
    Next after(UpstreamFailure.Kind failure, boolean written, boolean reusedConnection, boolean replayable) {
        return switch (failure) {
            case CONNECT_ERROR, CONNECT_TIMEOUT -> written ? afterWrite(false, replayable) : nextServer();
            case CLOSED -> afterWrite(reusedConnection, replayable);
            case READ_TIMEOUT, SEND_TIMEOUT -> afterWrite(false, replayable);
            case MALFORMED, NO_LIVE_UPSTREAM, QUEUE_FULL -> Next.GIVE_UP;
        };
    }

    private Next afterWrite(boolean reusedConnection, boolean replayable) {
        if (!idempotent || !replayable) {
            return Next.GIVE_UP;
        }
        if (reusedConnection && !staleRetried) {
            staleRetried = true;
            return Next.SAME_SERVER_FRESH;
        }
        return nextServer();
    }

    private Next nextServer() {
        return tries <= retries ? Next.NEXT_SERVER : Next.GIVE_UP;
    }
}
