/**
 * {@code portico import}: reads an nginx configuration (its own tokenizer and parser, following {@code include}
 * with globs as nginx does) and translates it into Portico HOCON, listing every directive Portico cannot express.
 * Plain single-threaded code run once by the CLI; no Netty, no server internals, only the config package's
 * vocabulary (the variables {@link io.portico.config.TextTemplate} knows).
 */
package io.portico.nginx;
