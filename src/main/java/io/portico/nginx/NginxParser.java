package io.portico.nginx;

import io.portico.nginx.Tokenizer.Kind;
import io.portico.nginx.Tokenizer.Token;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Parses an nginx configuration into {@link Directive}s, replacing each {@code include} by the directives of the
 * files it names. As in nginx, a relative include resolves against the main file's folder (nginx's conf prefix),
 * a glob's matches are read in name order and may be none, and a plain path that does not exist is an error.
 * The stock files nginx ships beside nginx.conf ({@code mime.types}, {@code uwsgi_params}...) may be missing: their
 * content is nginx's own defaults, and {@link #missingStockFiles} lists them for the report.
 */
final class NginxParser {
    /** Files nginx packages install next to nginx.conf; an import on a machine without nginx lacks them. */
    static final Set<String> STOCK_FILES = Set.of("mime.types", "uwsgi_params", "fastcgi_params", "fastcgi.conf",
            "scgi_params", "proxy_params", "koi-utf", "koi-win", "win-utf", "snippets/fastcgi-php.conf");
    private static final Set<String> BLOCKS = Set.of("http", "server", "location", "upstream", "events", "types",
            "map", "geo", "if", "limit_except", "split_clients", "stream", "mail", "match");
    private static final int MAX_INCLUDE_DEPTH = 16;

    private final Path base;
    private final List<Source> missingStockFiles = new ArrayList<>();
    private final List<String> missingStockNames = new ArrayList<>();

    private NginxParser(Path base) {
        this.base = base;
    }

    /** The directives of {@code file} and of everything it includes; the parser keeps the stock files it missed. */
    static Parsed parse(Path file) throws NginxSyntaxException {
        Path absolute = file.toAbsolutePath().normalize();
        NginxParser p = new NginxParser(absolute.getParent());
        List<Directive> top = p.parseFile(absolute, 0, null);
        return new Parsed(top, List.copyOf(p.missingStockFiles), List.copyOf(p.missingStockNames));
    }

    /** A parsed configuration, with the includes of stock nginx files that were not found (where, and which). */
    record Parsed(List<Directive> directives, List<Source> missingStock, List<String> missingStockNames) {}

    /** For tests: parses text as the file {@code name} in {@code base}, following its includes there. */
    static List<Directive> parseText(String text, Path base, String name) throws NginxSyntaxException {
        return new NginxParser(base).parseTokens(Tokenizer.tokens(text, name), name, 0);
    }

    private List<Directive> parseFile(Path file, int depth, Source from) throws NginxSyntaxException {
        String name = display(file);
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            String why = "cannot read " + file + " (" + e.getClass().getSimpleName() + ")";
            throw from == null ? new NginxSyntaxException(why) : new NginxSyntaxException(from, why);
        }
        return parseTokens(Tokenizer.tokens(text, name), name, depth);
    }

    private String display(Path file) {
        Path rel = base.relativize(file);
        return rel.toString().startsWith("..") ? file.toString() : rel.toString();
    }

    private List<Directive> parseTokens(List<Token> tokens, String file, int depth) throws NginxSyntaxException {
        int[] pos = {0};
        List<Directive> out = block(tokens, pos, file, depth, false, "");
        return out;
    }

    private List<Directive> block(List<Token> tokens, int[] pos, String file, int depth, boolean nested,
            String parent) throws NginxSyntaxException {
        List<Directive> out = new ArrayList<>();
        while (pos[0] < tokens.size()) {
            Token t = tokens.get(pos[0]++);
            Source at = new Source(file, t.line());
            switch (t.kind()) {
                case CLOSE -> {
                    if (!nested) {
                        throw new NginxSyntaxException(at, "unexpected \"}\" (expected: a directive; is a \"{\" missing?)");
                    }
                    return out;
                }
                case SEMICOLON -> throw new NginxSyntaxException(at, "unexpected \";\" (expected: a directive name)");
                case OPEN -> throw new NginxSyntaxException(at, "unexpected \"{\" (expected: a directive name)");
                case WORD -> directive(t, tokens, pos, file, depth, out, parent);
            }
        }
        if (nested) {
            Token last = tokens.get(tokens.size() - 1);
            throw new NginxSyntaxException(new Source(file, last.line()),
                    "unexpected end of file, expecting \"}\" (a block is not closed)");
        }
        return out;
    }

    private void directive(Token name, List<Token> tokens, int[] pos, String file, int depth, List<Directive> out,
            String parent) throws NginxSyntaxException {
        boolean block = BLOCKS.contains(name.text()) && !(parent.equals("upstream") && name.text().equals("server"))
                && !parent.equals("types") && !parent.equals("map") && !parent.equals("geo");
        Source at = new Source(file, name.line());
        List<String> args = new ArrayList<>();
        while (pos[0] < tokens.size()) {
            Token t = tokens.get(pos[0]++);
            switch (t.kind()) {
                case WORD -> {
                    if (t.startsLine() && DirectiveTable.isKnown(t.text()) && !args.isEmpty()) {
                        throw new NginxSyntaxException(at, "directive \"" + name.text()
                                + "\" is not terminated by \";\" (the next line starts \"" + t.text() + "\")");
                    }
                    args.add(t.text());
                }
                case SEMICOLON -> {
                    if (block) {
                        throw new NginxSyntaxException(at, "directive \"" + name.text() + "\" has no opening \"{\"");
                    }
                    if (name.text().equals("include")) {
                        include(at, args, depth, out);
                    } else {
                        out.add(new Directive(name.text(), List.copyOf(args), null, at));
                    }
                    return;
                }
                case OPEN -> {
                    if (!block && DirectiveTable.isKnown(name.text()) && !parent.equals("types")) {
                        throw new NginxSyntaxException(at, "directive \"" + name.text()
                                + "\" is not terminated by \";\"");
                    }
                    List<Directive> inner = block(tokens, pos, file, depth, true, name.text());
                    out.add(new Directive(name.text(), List.copyOf(args), List.copyOf(inner), at));
                    return;
                }
                case CLOSE -> throw new NginxSyntaxException(new Source(file, t.line()), "unexpected \"}\": directive \""
                        + name.text() + "\" at line " + name.line() + " is not terminated by \";\"");
            }
        }
        throw new NginxSyntaxException(at, "unexpected end of file, expecting \";\" or \"}\" (directive \""
                + name.text() + "\" is not terminated)");
    }

    private void include(Source at, List<String> args, int depth, List<Directive> out) throws NginxSyntaxException {
        if (args.size() != 1) {
            throw new NginxSyntaxException(at, "invalid number of arguments in \"include\" (expected: one path or glob)");
        }
        if (depth >= MAX_INCLUDE_DEPTH) {
            throw new NginxSyntaxException(at, "includes nest deeper than " + MAX_INCLUDE_DEPTH
                    + " (expected: no include cycle)");
        }
        String pattern = args.get(0);
        Path path = base.resolve(pattern).normalize();
        if (pattern.chars().noneMatch(c -> c == '*' || c == '?' || c == '[')) {
            if (!Files.isRegularFile(path)) {
                if (STOCK_FILES.contains(pattern) || STOCK_FILES.contains(path.getFileName().toString())) {
                    missingStockFiles.add(at);
                    missingStockNames.add(pattern);
                    return;
                }
                throw new NginxSyntaxException(at, "include \"" + path + "\" does not exist (nginx: open() failed)");
            }
            out.addAll(parseFile(path, depth + 1, at));
            return;
        }
        for (Path match : glob(path, at)) {
            out.addAll(parseFile(match, depth + 1, at));
        }
    }

    /** nginx's glob: the wildcard in the last name only matters here, matches sorted by name, none is fine. */
    private static List<Path> glob(Path path, Source at) throws NginxSyntaxException {
        Path dir = path.getParent();
        List<Path> matches = new ArrayList<>();
        if (dir == null || !Files.isDirectory(dir)) {
            return matches;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, path.getFileName().toString())) {
            s.forEach(p -> {
                if (Files.isRegularFile(p) && !p.getFileName().toString().startsWith(".")) {
                    matches.add(p);
                }
            });
        } catch (IOException | RuntimeException e) {
            throw new NginxSyntaxException(at, "cannot read the include glob " + path + " (" + e.getMessage() + ")");
        }
        matches.sort(null);
        return matches;
    }
}
