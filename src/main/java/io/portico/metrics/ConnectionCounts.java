package io.portico.metrics;

/**
 * Client connections by what they are doing, as nginx's stub_status counts them, sampled when asked.
 *
 * @param open open now (nginx's Active)
 * @param reading receiving a request head
 * @param writing with a request in progress: its body being read, or its response being made or written
 * @param waiting idle between requests (keep-alive), or connected without a byte of a request yet
 */
public record ConnectionCounts(int open, int reading, int writing, int waiting) {}
