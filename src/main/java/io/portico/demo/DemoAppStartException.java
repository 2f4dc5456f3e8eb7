package io.portico.demo;

import java.io.IOException;

/** The demo app could not start: its address is in use, the transport cannot bind a unix socket, and so on. */
public final class DemoAppStartException extends IOException {

    DemoAppStartException(String message) {
        super(message);
    }

    DemoAppStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
