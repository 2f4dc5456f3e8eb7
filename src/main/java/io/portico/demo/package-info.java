/**
 * The app-server stand-in: {@code portico demo-app} and the in-process app of the default config, an HTTP server
 * that behaves like gunicorn with N sync workers so Portico can be measured against an app without Python.
 *
 * <p>Threading: Netty event loops own the sockets, HTTP parsing and writes, and never block. A fixed pool of N
 * platform threads ({@link io.portico.demo.SyncWorkers}) runs the endpoints, where blocking is allowed and expected
 * (sleeps, whole-file reads): exactly N requests are in service at once and the rest wait in the pool's queue. A
 * worker builds the whole response, hands the write back to the channel's event loop and stays in service until
 * the write completes, as a gunicorn sync worker does until {@code send} returns.
 */
package io.portico.demo;
