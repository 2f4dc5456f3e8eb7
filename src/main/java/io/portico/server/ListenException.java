package io.portico.server;

/**
 * The server could not start listening: a port is in use, an address is not local, permission was refused, or the
 * configured transport does not load on this system.
 */
public final class ListenException extends Exception {
    public ListenException(String message, Throwable cause) {
        super(message, cause);
    }
}
