package io.portico.upstream;

import io.netty.buffer.ByteBuf;

/** FastCGI 1.0 record framing: the 8-byte header, the types and constants Portico uses. */
final class FastCgiRecords {
    static final int VERSION = 1;
    static final int BEGIN_REQUEST = 1;
    static final int END_REQUEST = 3;
    static final int PARAMS = 4;
    static final int STDIN = 5;
    static final int STDOUT = 6;
    static final int STDERR = 7;
    static final int RESPONDER = 1;
    static final int KEEP_CONN = 1;
    /** One request per connection at a time: every request is id 1, as nginx sends. */
    static final int REQUEST_ID = 1;
    static final int HEADER = 8;
    static final int MAX_CONTENT = 0xffff;

    private FastCgiRecords() {}

    static void header(ByteBuf out, int type, int contentLength) {
        out.writeByte(VERSION).writeByte(type).writeShort(REQUEST_ID).writeShort(contentLength).writeByte(0)
                .writeByte(0);
    }
}
