package io.portico.nginx;

/**
 * An nginx configuration that nginx itself would refuse to load (an unterminated block, a missing {@code ;}, an
 * include that names a file that does not exist): {@code FILE:LINE: what is wrong}, as {@code nginx -t} says it.
 */
public final class NginxSyntaxException extends Exception {
    private static final long serialVersionUID = 1L;

    NginxSyntaxException(Source where, String message) {
        super(where + ": " + message);
    }

    NginxSyntaxException(String message) {
        super(message);
    }
}
