package io.portico.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine;

/**
 * The command line as the user typed it, shell-quoted so it can be pasted back into a POSIX shell: a report that
 * records {@code --assert p99<1ms} unquoted would, pasted, redirect stdin from a file named {@code 1ms}.
 */
final class TypedCommand {

    /** Words a POSIX shell leaves alone: no quoting needed. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private TypedCommand() {
    }

    /**
     * {@code portico} and every argument picocli received. Under {@link Main} the arguments start with the
     * subcommand's name ({@code bench}); a command run on its own (tests) gets its name put back.
     */
    static String of(CommandLine.Model.CommandSpec spec) {
        CommandLine.Model.CommandSpec root = spec.root();
        CommandLine.ParseResult parse = root.commandLine().getParseResult();
        List<String> words = new ArrayList<>();
        words.add("portico");
        if (!root.name().equals("portico")) {
            words.add(root.name());
        }
        words.addAll(parse != null ? parse.originalArgs() : spec.commandLine().getParseResult().originalArgs());
        return join(words);
    }

    static String join(List<String> words) {
        StringBuilder sb = new StringBuilder();
        for (String w : words) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(quote(w));
        }
        return sb.toString();
    }

    /** {@code word} as one shell word: as is when plain, else in single quotes ({@code '} as {@code '\''}). */
    static String quote(String word) {
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }
}
