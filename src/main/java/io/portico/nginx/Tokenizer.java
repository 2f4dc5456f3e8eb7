package io.portico.nginx;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits nginx configuration text into words and the three punctuation tokens, as nginx's
 * {@code ngx_conf_read_token} does: {@code #} starts a comment only where a word could start, quotes only open a
 * word, {@code ${name}} inside a word is a variable and not a block, and of backslash escapes only {@code \"},
 * {@code \'}, {@code \\}, {@code \t}, {@code \r}, {@code \n} are resolved ({@code \.} in a regex stays).
 */
final class Tokenizer {
    enum Kind { WORD, SEMICOLON, OPEN, CLOSE }

    record Token(Kind kind, String text, int line, boolean startsLine) {}

    private final String text;
    private final String file;
    private int pos;
    private int line = 1;

    private Tokenizer(String text, String file) {
        this.text = text;
        this.file = file;
    }

    static List<Token> tokens(String text, String file) throws NginxSyntaxException {
        return new Tokenizer(text, file).all();
    }

    private List<Token> all() throws NginxSyntaxException {
        List<Token> out = new ArrayList<>();
        int lastLine = 0;
        while (true) {
            skipSpaceAndComments();
            if (pos >= text.length()) {
                return out;
            }
            boolean startsLine = line != lastLine;
            lastLine = line;
            char c = text.charAt(pos);
            int at = line;
            switch (c) {
                case ';' -> { pos++; out.add(new Token(Kind.SEMICOLON, ";", at, startsLine)); }
                case '{' -> { pos++; out.add(new Token(Kind.OPEN, "{", at, startsLine)); }
                case '}' -> { pos++; out.add(new Token(Kind.CLOSE, "}", at, startsLine)); }
                case '"', '\'' -> out.add(new Token(Kind.WORD, quoted(c), at, startsLine));
                default -> out.add(new Token(Kind.WORD, bare(), at, startsLine));
            }
        }
    }

    private void skipSpaceAndComments() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '\n') {
                line++;
                pos++;
            } else if (Character.isWhitespace(c)) {
                pos++;
            } else if (c == '#') {
                while (pos < text.length() && text.charAt(pos) != '\n') {
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private String quoted(char quote) throws NginxSyntaxException {
        int startLine = line;
        pos++;
        StringBuilder s = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == quote) {
                if (pos < text.length() && !Character.isWhitespace(text.charAt(pos))
                        && ";{}".indexOf(text.charAt(pos)) < 0) {
                    throw new NginxSyntaxException(new Source(file, line),
                            "unexpected \"" + text.charAt(pos) + "\" after a closing quote (expected: a space, ; or {)");
                }
                return s.toString();
            }
            if (c == '\n') {
                line++;
            }
            if (c == '\\' && pos < text.length()) {
                escape(s, text.charAt(pos++));
            } else {
                s.append(c);
            }
        }
        throw new NginxSyntaxException(new Source(file, startLine), "unterminated quoted string (expected: a closing "
                + quote + ")");
    }

    private String bare() {
        StringBuilder s = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (Character.isWhitespace(c) || c == ';' || c == '}') {
                break;
            }
            if (c == '{') {
                if (s.length() == 0 || s.charAt(s.length() - 1) != '$') {
                    break;
                }
                int close = text.indexOf('}', pos);
                if (close < 0) {
                    break;
                }
                s.append(text, pos, close + 1);
                pos = close + 1;
                continue;
            }
            pos++;
            if (c == '\\' && pos < text.length()) {
                escape(s, text.charAt(pos++));
            } else {
                s.append(c);
            }
        }
        return s.toString();
    }

    private static void escape(StringBuilder s, char next) {
        switch (next) {
            case '"', '\'', '\\' -> s.append(next);
            case 't' -> s.append('\t');
            case 'r' -> s.append('\r');
            case 'n' -> s.append('\n');
            default -> s.append('\\').append(next);
        }
    }
}
