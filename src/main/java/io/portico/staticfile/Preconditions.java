package io.portico.staticfile;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.Date;

/**
 * Conditional and range request evaluation for a file (RFC 9110 §13.2.2 order). Pure: headers and validators in,
 * decision out. A malformed header is treated as absent, never as an error.
 */
final class Preconditions {
    private Preconditions() {}

    sealed interface Decision {
        record Full() implements Decision {}

        record NotModified() implements Decision {}

        record PreconditionFailed() implements Decision {}

        record Partial(long start, long end) implements Decision {
            long length() {
                return end - start + 1;
            }
        }

        record RangeNotSatisfiable() implements Decision {}
    }

    static final Decision FULL = new Decision.Full();
    static final Decision NOT_MODIFIED = new Decision.NotModified();
    static final Decision PRECONDITION_FAILED = new Decision.PreconditionFailed();
    static final Decision RANGE_NOT_SATISFIABLE = new Decision.RangeNotSatisfiable();

    /**
     * @param get whether the method is GET (Range applies to GET only; HEAD gets the conditionals)
     * @param mtimeSeconds the Last-Modified time in seconds since the epoch
     */
    static Decision evaluate(HttpHeaders headers, boolean get, String etag, long mtimeSeconds, long size) {
        String ifMatch = headers.get(HttpHeaderNames.IF_MATCH);
        EntityTags.Match match = ifMatch == null ? EntityTags.Match.MALFORMED : EntityTags.strong(ifMatch, etag);
        if (match == EntityTags.Match.NO) {
            return PRECONDITION_FAILED;
        }
        if (match == EntityTags.Match.MALFORMED) {
            Long since = date(headers.get(HttpHeaderNames.IF_UNMODIFIED_SINCE));
            if (since != null && mtimeSeconds > since) {
                return PRECONDITION_FAILED;
            }
        }
        String ifNoneMatch = headers.get(HttpHeaderNames.IF_NONE_MATCH);
        EntityTags.Match none =
                ifNoneMatch == null ? EntityTags.Match.MALFORMED : EntityTags.weak(ifNoneMatch, etag);
        if (none == EntityTags.Match.YES) {
            return NOT_MODIFIED;
        }
        if (none == EntityTags.Match.MALFORMED) {
            Long since = date(headers.get(HttpHeaderNames.IF_MODIFIED_SINCE));
            if (since != null && mtimeSeconds <= since) {
                return NOT_MODIFIED;
            }
        }
        String range = headers.get(HttpHeaderNames.RANGE);
        if (!get || range == null || !ifRangeHolds(headers.get(HttpHeaderNames.IF_RANGE), etag, mtimeSeconds)) {
            return FULL;
        }
        ByteRange.Result result = ByteRange.parse(range, size);
        if (result instanceof ByteRange.Result.Satisfiable r) {
            return new Decision.Partial(r.start(), r.end());
        }
        return result instanceof ByteRange.Result.Unsatisfiable ? RANGE_NOT_SATISFIABLE : FULL;
    }

    /** An absent If-Range holds; a present one must match exactly, else the whole file is sent. */
    private static boolean ifRangeHolds(String ifRange, String etag, long mtimeSeconds) {
        if (ifRange == null) {
            return true;
        }
        if (EntityTags.looksLikeTag(ifRange)) {
            return EntityTags.strong(ifRange, etag) == EntityTags.Match.YES;
        }
        Long date = date(ifRange);
        return date != null && date == mtimeSeconds;
    }

    /** Seconds since the epoch of an HTTP date, or null when absent or malformed. */
    static Long date(String value) {
        if (value == null) {
            return null;
        }
        Date date = DateFormatter.parseHttpDate(value);
        return date == null ? null : Math.floorDiv(date.getTime(), 1000L);
    }
}
