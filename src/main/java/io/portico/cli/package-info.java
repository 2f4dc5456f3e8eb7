/**
 * The command line: {@code Main} and the picocli subcommands (serve, check, reload, bench, bench compare, demo-app,
 * version), and the signal handlers of a running server (HUP reloads the configuration file, USR1 reopens the logs).
 * The only package that prints to the terminal or exits the JVM; everything else reports through return values,
 * exceptions and the log.
 *
 * <p>Threading: commands run on the main thread; signal handlers on the JVM's signal thread, never an event loop.
 */
package io.portico.cli;
