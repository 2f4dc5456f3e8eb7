package io.portico.http1;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.DefaultHeaders;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.util.AsciiString;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Calendar;
import java.util.Collections;
import java.util.Date;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Function;

/**
 * The headers of a decoded HTTP/1 head (an upstream's response in {@code upstream.UpstreamCodec}, a client's request
 * in {@link RequestDecoder}): its fields in arrival order, names and values side by side in one array, validated as
 * {@link DefaultHttpHeadersFactory} validates them (the request decoder checks its fields' syntax itself, to the
 * same rules, and appends them as they are). A head carries a handful to a score of fields, and the code
 * asks about a few (Content-Length, Transfer-Encoding, Connection, Host, the hop-by-hop ones) and then writes them
 * all out in order: a scan of a short array answers those lookups, and the fields cost one array, not Netty's
 * table plus a linked entry per field (an upstream's response and the Server and Date fields the server adds to
 * it: about 180 bytes less). A head has at most {@code max-header-size} bytes, so a scan stays short however many
 * fields it has, and no lookup costs more than one scan. The responses Portico builds itself (a static file's, an
 * error's) keep their fields here too, without validation ({@code exchange.ResponseHeaders}): a static file's
 * response has 5 to 7 fields and the server adds 2 or 3.
 *
 * <p>{@link #getAll} of a field the head does not have is the shared empty list: Netty's decoder asks for every
 * head's Content-Length values, and most requests have none.
 *
 * <p>Same semantics as {@code DefaultHttpHeaders}: names compare without letter case, {@code set} removes every
 * field of the name and appends the new one at the end, {@code remove} keeps the others' order. The iterators
 * hand out one entry that they move along the fields (as Netty's {@code ReadOnlyHttpHeaders} does): read its key
 * and value before the next step, and do not keep it. Not thread-safe: one head, one event loop.
 *
 * <p>Past 400 lines because {@code HttpHeaders} has some forty methods to answer, each a few lines over the three
 * operations that matter: the scan ({@code indexOf}), the append and the in-order remove.
 */
public final class FieldList extends HttpHeaders {
    /**
     * Fields the array starts with room for: a typical response has up to 6 and the server adds 2; a browser's
     * request has more and costs one doubling.
     */
    private static final int INITIAL_FIELDS = 8;

    private final DefaultHeaders.NameValidator<CharSequence> nameValidator;
    private final DefaultHeaders.ValueValidator<CharSequence> valueValidator;
    /** Name of field i at 2i, its value at 2i + 1. */
    private CharSequence[] fields;
    private int size;

    private FieldList(DefaultHeaders.NameValidator<CharSequence> nameValidator,
            DefaultHeaders.ValueValidator<CharSequence> valueValidator, int capacity) {
        this.nameValidator = nameValidator;
        this.valueValidator = valueValidator;
        this.fields = new CharSequence[2 * capacity];
    }

    /** Makes these headers with the validators of {@code validating} (the decoder config's factory). */
    public static HttpHeadersFactory factory(DefaultHttpHeadersFactory validating) {
        return new HttpHeadersFactory() {
            @Override
            public HttpHeaders newHeaders() {
                return new FieldList(validating.getNameValidator(), validating.getValueValidator(), INITIAL_FIELDS);
            }

            @Override
            public HttpHeaders newEmptyHeaders() {
                return new FieldList(validating.getNameValidator(), validating.getValueValidator(), 1);
            }
        };
    }

    /**
     * Empty headers with room for {@code fields} fields (exactly the head's: its array is not grown nor oversized),
     * for a decoder that has checked its fields' syntax itself ({@code RequestDecoder}): it {@link #append}s them
     * unvalidated; what the handlers add or set later is validated as Netty's default
     * headers validate it.
     */
    static FieldList decoded(int fields) {
        DefaultHttpHeadersFactory validating = DefaultHttpHeadersFactory.headersFactory();
        return new FieldList(validating.getNameValidator(), validating.getValueValidator(), Math.max(fields, 1));
    }

    // Lookups

    private int indexOf(CharSequence name, int from) {
        int n = name.length();
        for (int i = from; i < size; i++) {
            CharSequence k = fields[2 * i];
            if (k == name || (k.length() == n && AsciiString.contentEqualsIgnoreCase(k, name))) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String get(String name) {
        return get((CharSequence) name);
    }

    @Override
    public String get(CharSequence name) {
        int i = indexOf(name, 0);
        return i < 0 ? null : fields[2 * i + 1].toString();
    }

    @Override
    public Integer getInt(CharSequence name) {
        return parsed(name, Integer::valueOf);
    }

    @Override
    public int getInt(CharSequence name, int defaultValue) {
        Integer v = getInt(name);
        return v == null ? defaultValue : v;
    }

    @Override
    public Short getShort(CharSequence name) {
        return parsed(name, Short::valueOf);
    }

    /** The first value of the name as {@code parse} reads it; null when there is none or it is not a number. */
    private <T> T parsed(CharSequence name, Function<String, T> parse) {
        String v = get(name);
        if (v == null) {
            return null;
        }
        try {
            return parse.apply(v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public short getShort(CharSequence name, short defaultValue) {
        Short v = getShort(name);
        return v == null ? defaultValue : v;
    }

    @Override
    public Long getTimeMillis(CharSequence name) {
        String v = get(name);
        Date date = v == null ? null : DateFormatter.parseHttpDate(v);
        return date == null ? null : date.getTime();
    }

    @Override
    public long getTimeMillis(CharSequence name, long defaultValue) {
        Long v = getTimeMillis(name);
        return v == null ? defaultValue : v;
    }

    @Override
    public List<String> getAll(String name) {
        return getAll((CharSequence) name);
    }

    @Override
    public List<String> getAll(CharSequence name) {
        int i = indexOf(name, 0);
        if (i < 0) {
            return List.of();
        }
        int next = indexOf(name, i + 1);
        if (next < 0) {
            return List.of(fields[2 * i + 1].toString());
        }
        List<String> all = new ArrayList<>(4);
        for (; i >= 0; i = indexOf(name, i + 1)) {
            all.add(fields[2 * i + 1].toString());
        }
        return all;
    }

    @Override
    public boolean contains(String name) {
        return indexOf(name, 0) >= 0;
    }

    @Override
    public boolean contains(CharSequence name) {
        return indexOf(name, 0) >= 0;
    }

    @Override
    public boolean contains(String name, String value, boolean ignoreCase) {
        return contains((CharSequence) name, value, ignoreCase);
    }

    /** Whether a field of the name has exactly this value. */
    @Override
    public boolean contains(CharSequence name, CharSequence value, boolean ignoreCase) {
        for (int i = indexOf(name, 0); i >= 0; i = indexOf(name, i + 1)) {
            CharSequence v = fields[2 * i + 1];
            if (ignoreCase ? AsciiString.contentEqualsIgnoreCase(v, value) : AsciiString.contentEquals(v, value)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a field of the name lists the value among its comma-separated elements ({@code Connection: keep-alive,
     * close}), blanks around them ignored. Asked of every head (HttpUtil's keep-alive and chunked checks): a scan,
     * no iterator over a values list.
     */
    @Override
    public boolean containsValue(CharSequence name, CharSequence value, boolean ignoreCase) {
        for (int i = indexOf(name, 0); i >= 0; i = indexOf(name, i + 1)) {
            if (listsElement(fields[2 * i + 1], value, ignoreCase)) {
                return true;
            }
        }
        return false;
    }

    private static boolean listsElement(CharSequence list, CharSequence value, boolean ignoreCase) {
        int start = 0;
        for (int i = 0; i <= list.length(); i++) {
            if (i == list.length() || list.charAt(i) == ',') {
                int from = start;
                int to = i;
                start = i + 1;
                while (from < to && isBlank(list.charAt(from))) {
                    from++;
                }
                while (to > from && isBlank(list.charAt(to - 1))) {
                    to--;
                }
                if (to - from == value.length() && regionMatches(list, from, value, ignoreCase)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t';
    }

    private static boolean regionMatches(CharSequence s, int from, CharSequence value, boolean ignoreCase) {
        for (int j = 0; j < value.length(); j++) {
            char a = s.charAt(from + j);
            char b = value.charAt(j);
            if (a != b && (!ignoreCase || AsciiString.toLowerCase(a) != AsciiString.toLowerCase(b))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public Iterator<String> valueStringIterator(CharSequence name) {
        return contains(name) ? getAll(name).iterator() : Collections.emptyIterator();
    }

    @Override
    public Iterator<? extends CharSequence> valueCharSequenceIterator(CharSequence name) {
        return valueStringIterator(name);
    }

    /** The name of field {@code i} (0 to {@code size() - 1}), in arrival order: a walk with no iterator. */
    public CharSequence name(int i) {
        return fields[2 * i];
    }

    /** The value of field {@code i}, as given. */
    public CharSequence value(int i) {
        return fields[2 * i + 1];
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<String> names() {
        Set<String> names = new LinkedHashSet<>();
        for (int i = 0; i < size; i++) {
            names.add(fields[2 * i].toString());
        }
        return names;
    }

    @Override
    public List<Map.Entry<String, String>> entries() {
        List<Map.Entry<String, String>> entries = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            entries.add(new AbstractMap.SimpleImmutableEntry<>(fields[2 * i].toString(),
                    fields[2 * i + 1].toString()));
        }
        return entries;
    }

    @Override
    public Iterator<Map.Entry<String, String>> iterator() {
        return new Fields<>(this, true);
    }

    @Override
    public Iterator<Map.Entry<CharSequence, CharSequence>> iteratorCharSequence() {
        return new Fields<>(this, false);
    }

    @Override
    public HttpHeaders copy() {
        FieldList copy = new FieldList(nameValidator, valueValidator, Math.max(size, 1));
        System.arraycopy(fields, 0, copy.fields, 0, 2 * size);
        copy.size = size;
        return copy;
    }

    // Changes

    @Override
    public HttpHeaders add(String name, Object value) {
        return add((CharSequence) name, value);
    }

    @Override
    public HttpHeaders add(CharSequence name, Object value) {
        nameValidator.validateName(name);
        append(name, value(value));
        return this;
    }

    @Override
    public HttpHeaders add(String name, Iterable<?> values) {
        return add((CharSequence) name, values);
    }

    @Override
    public HttpHeaders add(CharSequence name, Iterable<?> values) {
        nameValidator.validateName(name);
        for (Object v : values) {
            append(name, value(v));
        }
        return this;
    }

    @Override
    public HttpHeaders addInt(CharSequence name, int value) {
        return add(name, Integer.toString(value));
    }

    @Override
    public HttpHeaders addShort(CharSequence name, short value) {
        return add(name, Short.toString(value));
    }

    @Override
    public HttpHeaders set(String name, Object value) {
        return set((CharSequence) name, value);
    }

    @Override
    public HttpHeaders set(CharSequence name, Object value) {
        nameValidator.validateName(name);
        CharSequence v = value(value);
        remove(name);
        append(name, v);
        return this;
    }

    @Override
    public HttpHeaders set(String name, Iterable<?> values) {
        return set((CharSequence) name, values);
    }

    @Override
    public HttpHeaders set(CharSequence name, Iterable<?> values) {
        nameValidator.validateName(name);
        remove(name);
        for (Object v : values) {
            append(name, value(v));
        }
        return this;
    }

    @Override
    public HttpHeaders setInt(CharSequence name, int value) {
        return set(name, Integer.toString(value));
    }

    @Override
    public HttpHeaders setShort(CharSequence name, short value) {
        return set(name, Short.toString(value));
    }

    @Override
    public HttpHeaders remove(String name) {
        return remove((CharSequence) name);
    }

    @Override
    public HttpHeaders remove(CharSequence name) {
        int kept = indexOf(name, 0);
        if (kept < 0) {
            return this;
        }
        for (int i = kept + 1; i < size; i++) {
            CharSequence k = fields[2 * i];
            if (k.length() != name.length() || !AsciiString.contentEqualsIgnoreCase(k, name)) {
                fields[2 * kept] = k;
                fields[2 * kept + 1] = fields[2 * i + 1];
                kept++;
            }
        }
        Arrays.fill(fields, 2 * kept, 2 * size, null);
        size = kept;
        return this;
    }

    @Override
    public HttpHeaders clear() {
        Arrays.fill(fields, 0, 2 * size, null);
        size = 0;
        return this;
    }

    /** Replaces field {@code i}'s value (an obs-fold line unfolded into it). */
    void replaceValue(int i, CharSequence value) {
        fields[2 * i + 1] = value;
    }

    /** Adds a field at the end as it is: no validation (the decoder's own, or the caller's). */
    void append(CharSequence name, CharSequence value) {
        if (2 * size == fields.length) {
            fields = Arrays.copyOf(fields, Math.max(4, 2 * fields.length));
        }
        fields[2 * size] = name;
        fields[2 * size + 1] = value;
        size++;
    }

    /** A value as {@code DefaultHttpHeaders} converts and validates it: dates in HTTP form, other objects as text. */
    private CharSequence value(Object value) {
        if (value == null) {
            throw new NullPointerException("value");
        }
        CharSequence v;
        if (value instanceof CharSequence s) {
            v = s;
        } else if (value instanceof Date d) {
            v = DateFormatter.format(d);
        } else if (value instanceof Calendar c) {
            v = DateFormatter.format(c.getTime());
        } else {
            v = value.toString();
        }
        valueValidator.validate(v);
        return v;
    }

    /** Walks the fields with one entry, itself: nothing allocated per field. */
    private static final class Fields<T extends CharSequence> implements Iterator<Map.Entry<T, T>>, Map.Entry<T, T> {
        private final FieldList list;
        private final boolean strings;
        private int next;
        private int current = -1;

        Fields(FieldList list, boolean strings) {
            this.list = list;
            this.strings = strings;
        }

        @Override
        public boolean hasNext() {
            return next < list.size;
        }

        @Override
        public Map.Entry<T, T> next() {
            if (next >= list.size) {
                throw new NoSuchElementException();
            }
            current = next++;
            return this;
        }

        @Override
        public T getKey() {
            return as(list.fields[2 * current]);
        }

        @Override
        public T getValue() {
            return as(list.fields[2 * current + 1]);
        }

        @SuppressWarnings("unchecked")
        private T as(CharSequence s) {
            return (T) (strings ? s.toString() : s);
        }

        @Override
        public T setValue(T value) {
            throw new UnsupportedOperationException("read-only iterator");
        }

        @Override
        public String toString() {
            return list.fields[2 * current] + "=" + list.fields[2 * current + 1];
        }
    }
}
