package io.portico.connection;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.portico.exchange.ClientExchange;
import java.util.Arrays;

/**
 * The moments of a client channel's exchanges (request started, request ended, response head written, response
 * ended with the keep-alive decision), told once by the stage that owns them: on an HTTP/1.1 connection the
 * keep-alive stage, which sees every response a responder or a stage above it writes and makes the keep-alive
 * decision; on an HTTP/2 stream its exchange stage. Other stages observe ({@link ExchangeObserver}) instead of each
 * finding the end of a response in its own writes.
 *
 * <p>One per channel, found with {@link #of}; stages register as they are added to the pipeline. Everything runs on
 * the channel's event loop. The {@code fire} methods are the owner's (the server's), public only because the owner
 * lives in another package than this contract.
 */
public final class ExchangeEvents {
    private static final AttributeKey<ExchangeEvents> KEY = AttributeKey.valueOf(ExchangeEvents.class, "exchangeEvents");
    private static final ExchangeObserver[] NONE = {};

    private static final Runnable NOTHING = () -> {};

    private ExchangeObserver[] observers = NONE;
    private boolean writtenWanted;
    private Runnable dropRestOfRequest = NOTHING;

    private ExchangeEvents() {}

    /** The events of {@code channel}, made on first use. */
    public static ExchangeEvents of(Channel channel) {
        Attribute<ExchangeEvents> attr = channel.attr(KEY);
        ExchangeEvents events = attr.get();
        if (events == null) {
            events = new ExchangeEvents();
            attr.set(events);
        }
        return events;
    }

    public void observe(ExchangeObserver observer) {
        observe(observer, false);
    }

    /** @param wantsWritten the observer needs the future of the response's last write (the access log does) */
    public void observe(ExchangeObserver observer, boolean wantsWritten) {
        observers = Arrays.copyOf(observers, observers.length + 1);
        observers[observers.length - 1] = observer;
        writtenWanted |= wantsWritten;
    }

    /** The owner's: how it drops the rest of the current request when a stage refuses it. */
    public void ownerDrops(Runnable dropRestOfRequest) {
        this.dropRestOfRequest = dropRestOfRequest;
    }

    /**
     * The current request was refused ({@link ClientExchange#refuse}): the owner releases the rest of its body as it
     * arrives instead of passing it on. Nothing without an owner (a stage tested alone).
     */
    public void dropRestOfRequest() {
        dropRestOfRequest.run();
    }

    /** Some observer wants the future of a response's last write: the owner then writes it with a real promise. */
    public boolean writtenWanted() {
        return writtenWanted;
    }

    // Observers hear of each moment from the stage nearest the responder down, the order in which a write passes
    // them, as when each found the end of a response in its own writes.

    public void fireRequestStarted(HttpRequest head, boolean bodyFollows) {
        for (int i = observers.length - 1; i >= 0; i--) {
            observers[i].requestStarted(head, bodyFollows);
        }
    }

    public void fireRequestEnded() {
        for (int i = observers.length - 1; i >= 0; i--) {
            observers[i].requestEnded();
        }
    }

    public void fireResponseStarted(HttpResponse head) {
        for (int i = observers.length - 1; i >= 0; i--) {
            observers[i].responseStarted(head);
        }
    }

    public void fireResponseEnded(ChannelFuture written, boolean keepAlive) {
        ChannelFuture w = writtenWanted ? written : null;
        for (int i = observers.length - 1; i >= 0; i--) {
            observers[i].responseEnded(w, keepAlive);
        }
    }
}
