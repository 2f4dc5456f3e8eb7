package io.portico.staticfile;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One static request: walks the try-files candidates, then answers with a file, a redirect, a listing or an error,
 * or hands the request to a named upstream. Lives on the event loop; cache misses complete elsewhere and come
 * back through {@link #await}. Request body parts are held until it is known whether an upstream wants them.
 */
final class StaticExchange implements Exchange {
    private static final Logger log = LoggerFactory.getLogger(StaticExchange.class);
    private static final int MAX_ATTEMPTS = 2;

    private final StaticResponder location;
    private final ClientExchange client;
    private final HttpRequest request;
    /** Made for the first part held: a file answered from the cache has released its request's end already. */
    private List<HttpContent> held;
    private Exchange delegate;
    /** A response was started or the client went away: late completions are dropped. */
    private boolean done;
    /** The client shut its sending side before a named upstream took the request: that upstream is told. */
    private boolean clientInputShut;
    private int attempts;

    StaticExchange(StaticResponder location, ClientExchange client, HttpRequest request) {
        this.location = location;
        this.client = client;
        this.request = request;
    }

    ClientExchange client() {
        return client;
    }

    HttpRequest request() {
        return request;
    }

    StaticResponder location() {
        return location;
    }

    void start() {
        attempts++;
        if (!PathWalk.serveRemembered(this)) {
            new PathWalk(this).start();
        }
    }

    @Override
    public void onContent(HttpContent content) {
        if (delegate != null) {
            delegate.onContent(content);
        } else if (done) {
            content.release();
        } else {
            if (held == null) {
                held = new ArrayList<>(2);
            }
            held.add(content);
        }
    }

    @Override
    public void onClientClosed() {
        done = true;
        releaseHeld();
        if (delegate != null) {
            delegate.onClientClosed();
        }
    }

    /** A file is answered to a half-closed client as to any other; a named upstream decides for itself. */
    @Override
    public void onClientInputShutdown() {
        if (delegate != null) {
            delegate.onClientInputShutdown();
        } else {
            clientInputShut = true;
        }
    }

    /** Hands the request to the named upstream, replaying the body parts received so far. */
    void delegate(String name) {
        Responder upstream = location.named(name);
        if (upstream == null) {
            log.error("try-files fallback @{} names no upstream", name);
            error(HttpResponseStatus.INTERNAL_SERVER_ERROR);
            return;
        }
        delegate = upstream.open(client, request);
        if (held != null) {
            for (HttpContent content : held) {
                delegate.onContent(content);
            }
            held = null;
        }
        if (clientInputShut) { // told only after the last part, which the replay has just given it
            delegate.onClientInputShutdown();
        }
    }

    /** Marks the response as started; from now on late completions and body parts are dropped. */
    void answering() {
        done = true;
        releaseHeld();
    }

    void error(HttpResponseStatus status) {
        error(status, null);
    }

    void error(HttpResponseStatus status, HttpHeaders headers) {
        answering();
        client.sendError(status, headers, false);
    }

    void methodNotAllowed() {
        error(HttpResponseStatus.METHOD_NOT_ALLOWED, new DefaultHttpHeaders().set(HttpHeaderNames.ALLOW, "GET, HEAD"));
    }

    /**
     * The file changed or vanished between stat and read: forget it and walk again, once. A name still changing
     * under the second walk (a file and a symlink renamed over each other in a loop) is not a file Portico can
     * serve as it was described: 404, as for a name that is not there (nginx: ENOENT 404, EACCES 403). Only an
     * I/O error of a file that stayed put is a 500.
     */
    void retry(Representation representation, Throwable failure) {
        FileMeta file = representation.file();
        location.cache().invalidate(representation.original()); // it holds the variant's metadata too
        location.cache().invalidate(file);
        if (attempts < MAX_ATTEMPTS) {
            start();
            return;
        }
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        if (cause instanceof AccessDeniedException) {
            error(HttpResponseStatus.FORBIDDEN);
        } else if (cause instanceof FileCache.FileChangedException || cause instanceof NoSuchFileException) {
            log.debug("{} kept changing while it was read: {}", file.path(), cause.toString());
            error(HttpResponseStatus.NOT_FOUND);
        } else {
            log.warn("cannot read {}: {}", file.path(), cause.toString());
            error(HttpResponseStatus.INTERNAL_SERVER_ERROR);
        }
    }

    /**
     * Continues with the result of {@code future} on the event loop: at once when it is already complete (a cached
     * hit), else after a hop. A result arriving after the exchange is over goes to {@code discard} (close files).
     */
    <T> void await(CompletableFuture<T> future, Consumer<T> then, Consumer<Throwable> failed, Consumer<T> discard) {
        if (future.isDone()) {
            complete(future, then, failed, discard);
            return;
        }
        future.whenComplete((value, failure) -> {
            try {
                client.channel().eventLoop().execute(() -> complete(future, then, failed, discard));
            } catch (RejectedExecutionException e) {
                if (value != null) {
                    discard.accept(value);
                }
            }
        });
    }

    private <T> void complete(CompletableFuture<T> future, Consumer<T> then, Consumer<Throwable> failed,
            Consumer<T> discard) {
        T value = null;
        Throwable failure = null;
        try {
            value = future.join();
        } catch (RuntimeException e) {
            failure = e.getCause() != null ? e.getCause() : e;
        }
        if (done) {
            if (value != null) {
                discard.accept(value);
            }
            return;
        }
        try {
            if (failure == null) {
                then.accept(value);
            } else {
                failed.accept(failure);
            }
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    /** An unexpected failure: a 500 unless the response has started (then the server's close is all there is). */
    void failed(RuntimeException e) {
        log.error("static request {} failed", client.path(), e);
        if (!done) {
            error(HttpResponseStatus.INTERNAL_SERVER_ERROR);
        }
    }

    private void releaseHeld() {
        if (held != null) {
            for (HttpContent content : held) {
                content.release();
            }
            held = null;
        }
    }
}
