package io.portico.bench;

/**
 * Why a request failed. Client-side classes are limits of the machine running the benchmark, never the server's
 * failure; their {@link #fix} says what to change.
 */
public enum ErrorClass {
    CONNECT_REFUSED("connect refused", false, "nothing listens on that address, or its accept queue is full"),
    CONNECT_TIMEOUT("connect timeout", false, "the server did not accept within --connect-timeout"),
    CLIENT_OUT_OF_PORTS("client out of ports (Cannot assign requested address)", true,
            "the client ran out of local ports: use keep-alive (-k), fewer connections, or add source addresses "
                    + "(--source-ip 127.0.0.2,127.0.0.3) to multiply the port budget"),
    CLIENT_OUT_OF_FILES("client out of file descriptors (Too many open files)", true,
            "the client hit its open-file limit: raise it (ulimit -n 65536) or use fewer connections (-c)"),
    CLIENT_OTHER("client-side socket error", true, "the client could not open a socket (see the message)"),
    TLS_HANDSHAKE("TLS handshake failed", false, "the server's certificate is not trusted here (for a test "
            + "certificate use --insecure), does not name the host, or no protocol in common (see the message)"),
    READ_TIMEOUT("read timeout", false, "no complete response within --timeout (recorded at the timeout)"),
    RESET("connection reset", false, "the server reset the connection"),
    PREMATURE_CLOSE("premature close", false, "the server closed the connection before the response ended"),
    HTTP_4XX("HTTP 4xx", false, "client errors answered by the server (429 counted separately)"),
    HTTP_429("HTTP 429 (rate-limited)", false, "the server rate-limited the client"),
    HTTP_5XX("HTTP 5xx", false, "server errors (503 counted separately)"),
    HTTP_503("HTTP 503 (rate-limited or unavailable)", false, "the server shed load or rate-limited the client"),
    OTHER("other I/O error", false, "see the first message");

    private final String label;
    private final boolean clientSide;
    private final String fix;

    ErrorClass(String label, boolean clientSide, String fix) {
        this.label = label;
        this.clientSide = clientSide;
        this.fix = fix;
    }

    public String label() {
        return label;
    }

    /** True when the failure is a limit of the machine running the benchmark. */
    public boolean clientSide() {
        return clientSide;
    }

    public String fix() {
        return fix;
    }

    /** The stable key used in JSON ({@code connect_refused}, {@code http_5xx}...). */
    public String key() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The class of an HTTP status, or null when the status counts as a success (below 400). */
    static ErrorClass ofStatus(int status) {
        if (status < 400) {
            return null;
        }
        if (status == 429) {
            return HTTP_429;
        }
        if (status == 503) {
            return HTTP_503;
        }
        return status < 500 ? HTTP_4XX : HTTP_5XX;
    }
}
