package io.portico.upstream;

/** The variables of a request do not fit uwsgi's 16-bit size (nginx: "uwsgi request is too big"). */
public final class UwsgiRequestTooLargeException extends RuntimeException {
    UwsgiRequestTooLargeException(int size) {
        super("uwsgi request variables are " + size + " bytes (expected: at most " + UwsgiEncoder.MAX_VARS + ")");
    }
}
