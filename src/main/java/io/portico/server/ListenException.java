package io.portico.server;

/**
 * The server could not start listening: a port is in use, an address is not local, permission was refused, the
 * configured transport does not load on this system, or a rate-limit zone's shared store cannot be reached.
 */
public final class ListenException extends Exception {
    public ListenException(String message, Throwable cause) {
        super(message, cause);
    }
}
