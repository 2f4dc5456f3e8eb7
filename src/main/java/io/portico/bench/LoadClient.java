package io.portico.bench;

/**
 * What a {@link LoopDriver} drives: one request in flight at a time, on its driver's loop. An HTTP/1.1
 * {@link VirtualClient} is a connection; with --h2 each {@link H2Stream} is one stream slot of a shared
 * {@link H2Connection}, so {@code -c 10 -m 4} is 40 of these over 10 connections.
 */
interface LoadClient {

    /** Sends {@code request}; latency counts from {@code intendedNs}; {@code nowNs} is the caller's clock read. */
    void send(RequestTemplate request, long intendedNs, long nowNs);

    /** Records a request that outlived {@code timeoutNs} at its timeout. */
    void checkTimeout(long nowNs, long timeoutNs);

    /** This client is done for now (end of run, repetitions used up): its connection may close. */
    void closeChannel();

    /** Ends an unfinished request at the end of the run as a timeout at its current age. */
    void abandon(long nowNs);

    /** Repetitions (-r) left; Long.MAX_VALUE when unbounded. */
    long repetitionsLeft();

    void repetitionsLeft(long left);
}
