package dev.lanes.docs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The compilation unit made of one snippet: its imports (the marker's, then every {@code dev.lanes} class the snippet
 * names, then {@code java.util}, {@code java.time} and Reactor's publishers on demand), and the wrapping its marker asks
 * for. The snippet's own lines are copied unchanged, so a compiler's line maps back to the Markdown file.
 *
 * @param className the unit's class, {@code snippets.<name>}
 * @param text the unit's source
 * @param firstSnippetLine the 1-based line of {@code text} where the snippet's first line is
 * @param problems what stopped the unit from being built (an ambiguous class name), empty when none
 */
record SnippetSource(String className, String text, int firstSnippetLine, List<String> problems) {

    private static final Pattern TYPE_NAME = Pattern.compile("\\b([A-Z][A-Za-z0-9_]*)\\b");
    private static final Pattern PUBLIC_TYPE =
            Pattern.compile("public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");
    private static final List<String> ON_DEMAND =
            List.of("java.util.*", "java.util.function.*", "java.time.*", "reactor.core.publisher.*");

    static SnippetSource of(Snippet snippet, String name, ClasspathIndex index) {
        List<String> problems = new ArrayList<>();
        Set<String> imports = new LinkedHashSet<>(explicitImports(snippet));
        Set<String> named = new TreeSet<>();
        imports.forEach(i -> named.add(i.substring(i.lastIndexOf('.') + 1)));
        List<String> scanned = new ArrayList<>(snippet.code());
        scanned.add(snippet.option("given", "") + " " + snippet.option("returns", ""));
        for (String type : typeNames(scanned)) {
            Set<String> candidates = index.classes(type);
            if (named.contains(type) || candidates.isEmpty()) {
                continue;
            }
            if (candidates.size() > 1) {
                problems.add(snippet.where() + ": " + type + " is ambiguous (" + candidates
                        + "): name the one meant in the marker, <!-- snippet: imports=... -->");
            } else {
                imports.add(candidates.iterator().next());
            }
        }
        ON_DEMAND.forEach(imports::add);
        List<String> head = new ArrayList<>();
        head.add("package snippets;");
        imports.forEach(i -> head.add("import " + i + ";"));
        String body = String.join("\n", snippet.code());
        if (snippet.marker().containsKey("unit")) {
            Matcher m = PUBLIC_TYPE.matcher(body);
            String cls = m.find() ? m.group(1) : name;
            return new SnippetSource(
                    "snippets." + cls, String.join("\n", head) + "\n" + body + "\n", head.size() + 1, problems);
        }
        head.add("@SuppressWarnings(\"all\")");
        head.add("class " + name + " {");
        if (snippet.marker().containsKey("declare")) {
            head.add(snippet.option("declare", ""));
        }
        if (!snippet.marker().containsKey("members")) {
            head.add(snippet.option("returns", "void") + " snippet(" + snippet.option("given", "")
                    + ") throws Exception {");
        }
        String tail = snippet.marker().containsKey("members") ? "}\n" : "}\n}\n";
        return new SnippetSource(
                "snippets." + name, String.join("\n", head) + "\n" + body + "\n" + tail, head.size() + 1, problems);
    }

    private static List<String> explicitImports(Snippet snippet) {
        List<String> imports = new ArrayList<>();
        for (String i : snippet.option("imports", "").split(",")) {
            if (!i.isBlank()) {
                imports.add(i.strip());
            }
        }
        return imports;
    }

    /** The capitalised names in the snippet's code, comments and string literals left out. */
    private static Set<String> typeNames(List<String> code) {
        Set<String> names = new TreeSet<>();
        for (String line : code) {
            String stripped =
                    line.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"").replaceAll("//.*$", "");
            Matcher m = TYPE_NAME.matcher(stripped);
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }
}
