package io.portico.upstream;

/**
 * A response head a strict proxy must not relay although Netty's decoder would accept it (a version other than
 * HTTP/1.0 or HTTP/1.1, whitespace before a field's colon, an unknown transfer coding, a repeated Content-Length,
 * too many fields). Thrown inside the decoder, which turns it into a failed decoder result: the exchange answers
 * 502 and the connection is closed.
 */
final class MalformedResponseException extends IllegalArgumentException {
    MalformedResponseException(String message) {
        super(message);
    }

    /** No stack: it describes the upstream's bytes, not a fault in Portico, and an upstream may send many. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
