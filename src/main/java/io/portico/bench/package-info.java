/**
 * The {@code portico bench} load generator and its reports: an HTTP/1.1 client on Netty's transport (pre-encoded
 * requests, responses framed from the raw bytes by {@link io.portico.bench.ResponseParser}, no HTTP codec) with one
 * connection per virtual client, closed-loop and open-loop (intended-schedule, coordinated-omission-free) load
 * models, latency in HdrHistogram, error classification that separates the client's own limits from the server's
 * failures, siege/ab style text output, JSON, HTML and A/B comparison.
 *
 * <p>Threading: each {@link io.portico.bench.LoopDriver} and its {@link io.portico.bench.VirtualClient}s live on one
 * client event loop and are touched only there; they publish figures through {@link io.portico.bench.LoopStats}
 * (single-writer recorders and counters). {@link io.portico.bench.BenchRun} runs on the caller's thread, which may
 * block: it ticks once a second, collects interval figures and decides when to stop. Reports (text, JSON, HTML) are
 * plain functions of a finished {@link io.portico.bench.BenchResult}, or of the {@link io.portico.bench.Scenario}s of
 * a comparison with their {@code --assert} results; docs/benchmarking.md documents every JSON field. This package
 * depends on no server internals.
 */
package io.portico.bench;
