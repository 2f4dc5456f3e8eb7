/**
 * What every stage of a client channel shares: the names of its pipeline stages and their one later change ({@link
 * io.portico.connection.ClientPipeline}, a protocol switch or chunked writes), its read gate ({@link
 * io.portico.connection.ReadGate}: reads held for named reasons, the only way a stage stops or resumes reading) and
 * its exchange events ({@link io.portico.connection.ExchangeEvents}: request started and ended, response started and
 * ended, told once by the exchanges' owner in the server and observed by the other stages through {@link
 * io.portico.connection.ExchangeObserver}).
 *
 * <p>Threading: each instance belongs to one client channel and is used on its event loop only.
 */
package io.portico.connection;
