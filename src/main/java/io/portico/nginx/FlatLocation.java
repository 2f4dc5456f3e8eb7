package io.portico.nginx;

/**
 * One location as Portico sees it: nested nginx locations flattened, each with the scope it inherits.
 *
 * @param kind how it matches; {@code value} the path or (for nested regexes, combined with the parent's
 *     prefix) the Java regex
 * @param source the nginx location block, or the server block for the location a server's own settings make
 * @param depth how deep it was nested (nginx tries a nested location's regexes before its parent's)
 * @param caretTilde nginx's {@code ^~}: a prefix that, when longest, stops the regexes from being tried
 */
record FlatLocation(Kind kind, String value, Scope scope, Directive source, int depth, boolean caretTilde) {
    enum Kind { EXACT, REGEX, PREFIX }
}
