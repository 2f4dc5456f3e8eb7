package io.portico.config;

import java.time.Duration;

/**
 * HTTP/2 to clients, for every listener that speaks it: the SETTINGS Portico announces and the defences it
 * enforces. A client past a limit gets the error RFC 9113 gives it (a stream over {@code maxConcurrentStreams} is
 * refused with RST_STREAM REFUSED_STREAM; a header list over {@code maxHeaderListSize} gets 431 or the connection's
 * GOAWAY; more than {@code maxResets} resets in {@code resetWindow} is the rapid-reset attack, CVE-2023-44487, and
 * gets GOAWAY ENHANCE_YOUR_CALM; a CONTINUATION flood gets GOAWAY).
 */
public record Http2Config(
        int maxConcurrentStreams,
        int initialWindowSize,
        long maxHeaderListSize,
        int maxFrameSize,
        int maxResets,
        Duration resetWindow,
        int maxSmallContinuations) {}
