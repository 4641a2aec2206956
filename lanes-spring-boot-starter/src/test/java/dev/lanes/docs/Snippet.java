package dev.lanes.docs;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One ```java block of a Markdown file, with the marker comment on the line before it, if any.
 *
 * <p>The marker is {@code <!-- snippet: key=value; key=value -->}. Keys: {@code skip=<why>} (not compiled; the reason
 * is required), {@code unit} (a whole compilation unit, compiled as written), {@code members} (fields and methods,
 * wrapped in a class), {@code given=Type name, Type name} (the free variables, as the wrapping method's parameters),
 * {@code returns=Type} (the wrapping method's return type), {@code declare=record MoneyIn(long cents) {}} (members
 * of the wrapping class the snippet uses), {@code imports=a.b.C, static a.b.C.m} (imports beyond the automatic ones),
 * {@code excerpt=<path>} (not compiled here: the lines are a part of that source file, which the build compiles). Without a marker a block is statements, wrapped in a method of a class.
 *
 * @param file the Markdown file, relative to the project root
 * @param line the 1-based line of the block's first code line
 * @param code the block's lines
 * @param marker the marker's keys and values (empty without a marker)
 */
record Snippet(Path file, int line, List<String> code, Map<String, String> marker) {

    Snippet {
        Objects.requireNonNull(file, "file");
        code = List.copyOf(code);
        marker = Map.copyOf(marker);
        if (marker.containsKey("skip") && marker.get("skip").isBlank()) {
            throw new IllegalArgumentException(
                    file + ":" + line + ": a snippet marked skip must say why (skip=<reason>)");
        }
    }

    String where() {
        return file + ":" + line;
    }

    boolean skipped() {
        return marker.containsKey("skip");
    }

    String option(String key, String otherwise) {
        return marker.getOrDefault(key, otherwise);
    }
}
