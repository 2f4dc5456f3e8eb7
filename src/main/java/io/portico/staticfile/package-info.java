/**
 * Static files: the one safe mapping from a request path to a file under a location's directory
 * ({@link io.portico.staticfile.SafePathResolver}), an open-file cache of metadata and small file bytes, conditional
 * and range requests, precompressed variants, and zero-copy writes.
 *
 * <p>Threading: {@link io.portico.exchange.Responder#open} and every write run on the client channel's event loop and
 * never touch the file system there. A cache miss (stat, open, read, directory listing) runs on the small executor
 * owned by {@link io.portico.staticfile.StaticFiles}, which then hops back with {@code channel.eventLoop().execute}. A
 * cached hit is answered without leaving the event loop.
 */
package io.portico.staticfile;
