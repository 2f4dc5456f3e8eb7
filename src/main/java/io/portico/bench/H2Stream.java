package io.portico.bench;

import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

/**
 * One stream slot of an {@link H2Connection}: one request at a time, like an HTTP/1.1 virtual client, but over a
 * connection shared with the connection's other slots ({@code -m}). A response counts as in HTTP/1.1: its status,
 * its body bytes (DATA frames), latency from the intended send to END_STREAM. Lives on its driver's loop.
 */
final class H2Stream implements LoadClient {

    private final H2Connection connection;
    private final LoopDriver driver;
    private final LoopStats stats;
    private long repetitionsLeft;
    private RequestTemplate template;
    /** The stream the request in flight went out on; null when none has. */
    private Http2FrameStream stream;
    private boolean inFlight;
    private long intendedNs;
    private long writeNs;
    private long connectNs;
    private long firstByteNs;
    private int status;
    private long bodyBytes;

    H2Stream(H2Connection connection, LoopDriver driver, LoopStats stats) {
        this.connection = connection;
        this.driver = driver;
        this.stats = stats;
    }

    @Override
    public long repetitionsLeft() {
        return repetitionsLeft;
    }

    @Override
    public void repetitionsLeft(long left) {
        repetitionsLeft = left;
    }

    RequestTemplate template() {
        return template;
    }

    boolean inFlight() {
        return inFlight;
    }

    /** Whether the request in flight was written (it has a stream), rather than waiting for its connection. */
    boolean started() {
        return stream != null;
    }

    Http2FrameStream stream() {
        return stream;
    }

    @Override
    public void send(RequestTemplate request, long intendedNs, long nowNs) {
        this.template = request;
        this.intendedNs = intendedNs;
        this.inFlight = true;
        this.stream = null;
        this.writeNs = 0;
        this.connectNs = 0;
        this.firstByteNs = 0;
        this.status = 0;
        this.bodyBytes = 0;
        connection.submit(this, nowNs);
    }

    /** The request went out on {@code s}; {@code setupNs}: the connection's setup when it was opened for it. */
    void written(Http2FrameStream s, long nowNs, long setupNs) {
        stream = s;
        writeNs = nowNs;
        connectNs = setupNs;
    }

    void headers(Http2Headers headers, boolean endStream, long nowNs) {
        if (firstByteNs == 0) {
            firstByteNs = nowNs;
        }
        CharSequence s = headers.status();
        if (status == 0 && s != null) {
            int code = AsciiString.of(s).parseInt();
            status = code >= 200 ? code : 0; // 1xx: informational, the final status follows
        }
        if (endStream) {
            complete(nowNs);
        }
    }

    void data(int bytes, boolean endStream, long nowNs) {
        if (firstByteNs == 0) {
            firstByteNs = nowNs;
        }
        bodyBytes += bytes;
        if (endStream) {
            complete(nowNs);
        }
    }

    private void complete(long nowNs) {
        if (status == 0) {
            failed(ErrorClass.OTHER, new MalformedResponseException("HTTP/2 response without a final :status"),
                    false);
            return;
        }
        inFlight = false;
        stream = null;
        stats.response(status, nowNs - intendedNs, connectNs, firstByteNs - writeNs, bodyBytes);
        driver.onIdle(this, false);
    }

    /** The request failed (stream reset, connection gone or never set up). */
    void failed(ErrorClass error, Throwable cause, boolean backoff) {
        inFlight = false;
        stream = null;
        writeNs = 0;
        stats.error(error, cause);
        driver.onIdle(this, backoff);
    }

    @Override
    public void checkTimeout(long nowNs, long timeoutNs) {
        if (!inFlight) {
            return;
        }
        if (writeNs == 0) {
            connection.checkSetup(nowNs, timeoutNs);
            return;
        }
        if (nowNs - writeNs >= timeoutNs) {
            inFlight = false;
            stats.timeout(writeNs + timeoutNs - intendedNs);
            connection.cancel(stream); // the other streams of the connection go on
            stream = null;
            driver.onIdle(this, true);
        }
    }

    @Override
    public void closeChannel() {
        connection.retire(this);
    }

    @Override
    public void abandon(long nowNs) {
        if (inFlight) {
            inFlight = false;
            stats.timeout(nowNs - intendedNs);
            if (stream != null) {
                connection.cancel(stream);
                stream = null;
            }
        }
        connection.retire(this);
    }
}
