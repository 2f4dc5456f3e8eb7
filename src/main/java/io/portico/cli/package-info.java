/**
 * The command line: {@code Main} and the picocli subcommands (serve, check, bench, bench compare, demo-app, version),
 * and the signal handlers of a running server (HUP logged and ignored until reload lands, USR1 reopens the logs).
 * The only package that prints to the terminal or exits the JVM; everything else reports through return values,
 * exceptions and the log.
 *
 * <p>Threading: commands run on the main thread; signal handlers on the JVM's signal thread, never an event loop.
 */
package io.portico.cli;
