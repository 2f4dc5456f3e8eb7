package io.portico.server;

/** A listener could not be bound: the port is in use, the address is not local, or permission was refused. */
public final class ListenException extends Exception {
    public ListenException(String message, Throwable cause) {
        super(message, cause);
    }
}
