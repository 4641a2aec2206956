package dev.lanes.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the ```java blocks of a Markdown file and the {@code <!-- snippet: ... -->} marker before each. */
final class MarkdownSnippets {

    private static final Pattern MARKER = Pattern.compile("^<!--\\s*snippet:(.*)-->\\s*$");

    private MarkdownSnippets() {}

    static List<Snippet> read(Path root, Path file) {
        List<String> lines = DocsFiles.lines(file);
        List<Snippet> snippets = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java")) {
                continue;
            }
            int end = closingFence(lines, i + 1, root.relativize(file));
            Map<String, String> marker = i > 0 ? marker(lines.get(i - 1).strip()) : Map.of();
            snippets.add(new Snippet(root.relativize(file), i + 2, lines.subList(i + 1, end), marker));
            i = end;
        }
        return snippets;
    }

    private static int closingFence(List<String> lines, int from, Path file) {
        for (int j = from; j < lines.size(); j++) {
            if (lines.get(j).strip().equals("```")) {
                return j;
            }
        }
        throw new IllegalStateException(file + ":" + from + ": a ```java block is never closed");
    }

    private static Map<String, String> marker(String line) {
        Matcher m = MARKER.matcher(line);
        if (!m.matches()) {
            return Map.of();
        }
        Map<String, String> marker = new LinkedHashMap<>();
        for (String part : m.group(1).split(";")) {
            if (part.isBlank()) {
                continue;
            }
            int eq = part.indexOf('=');
            String key = (eq < 0 ? part : part.substring(0, eq)).strip();
            marker.put(key, eq < 0 ? "" : part.substring(eq + 1).strip());
        }
        return marker;
    }
}
