package io.portico.bench;

/** A response the client cannot frame (counted as an "other" error, with this message as its first example). */
final class MalformedResponseException extends Exception {

    MalformedResponseException(String message) {
        super("malformed response: " + message, null, false, false);
    }
}
