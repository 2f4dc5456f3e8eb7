package io.portico.http1;

/**
 * A request head or body that breaks HTTP/1.1's syntax or framing rules: the decoder fails the message with it,
 * the server answers 400 and closes (its bytes after this one cannot be trusted to start a request).
 */
public final class MalformedRequestException extends IllegalArgumentException {
    public MalformedRequestException(String message) {
        super(message);
    }
}
