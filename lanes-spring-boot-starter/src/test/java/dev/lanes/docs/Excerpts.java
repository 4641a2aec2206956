package dev.lanes.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A snippet marked {@code excerpt=<file>} shows code of a source file the build compiles (and a test runs): each of its
 * lines, with {@code //} comments and all whitespace left out (the doc may comment or wrap a line as the source does
 * not), appears in that file after the previous one. Lines may be left out between them (an abridged excerpt), never
 * changed or reordered.
 */
final class Excerpts {

    private Excerpts() {}

    /** What is wrong with the excerpt, or empty when the file holds it. */
    static Optional<String> check(Path root, Snippet snippet) {
        Path source = root.resolve(snippet.option("excerpt", ""));
        if (!Files.isRegularFile(source)) {
            return Optional.of(snippet.where() + ": the excerpt's source " + source + " does not exist");
        }
        String file = DocsFiles.lines(source).stream().map(Excerpts::normalise).collect(Collectors.joining());
        List<String> code = snippet.code();
        int from = 0;
        for (int i = 0; i < code.size(); i++) {
            String line = normalise(code.get(i));
            int at = file.indexOf(line, from);
            if (at < 0) {
                return Optional.of(snippet.file() + ":" + (snippet.line() + i) + ": this line is not in "
                        + root.relativize(source) + " (after the excerpt's previous lines): "
                        + code.get(i).strip());
            }
            from = at + line.length();
        }
        return Optional.empty();
    }

    private static String normalise(String line) {
        return line.replaceFirst("//.*$", "").replaceAll("\\s+", "");
    }
}
