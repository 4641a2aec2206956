package dev.lanes.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative Markdown link of README.md, docs/**.md and the modules' READMEs resolves: to a file or folder of the
 * repository, and, when it names an anchor in a Markdown file, to a heading of that file (GitHub's slugs).
 */
class DocsLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern FENCE = Pattern.compile("^\\s*```");

    @Test
    void everyRelativeLinkResolves() {
        Path root = DocsFiles.root();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : DocsFiles.markdown(root)) {
            List<String> lines = DocsFiles.lines(file);
            boolean inCode = false;
            for (int n = 0; n < lines.size(); n++) {
                if (FENCE.matcher(lines.get(n)).find()) {
                    inCode = !inCode;
                }
                Matcher m = LINK.matcher(lines.get(n));
                while (!inCode && m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue; // https:, mailto:
                    }
                    checked++;
                    String problem = problem(file, target);
                    if (problem != null) {
                        broken.add(root.relativize(file) + ":" + (n + 1) + ": (" + target + ") " + problem);
                    }
                }
            }
        }
        assertThat(checked).as("relative links found").isGreaterThan(20);
        assertThat(broken).as("relative links that resolve to nothing").isEmpty();
    }

    private static String problem(Path file, String target) {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        if (!Files.exists(resolved)) {
            return "no such file: " + resolved;
        }
        if (hash < 0 || !resolved.toString().endsWith(".md")) {
            return null;
        }
        String anchor = target.substring(hash + 1);
        return anchors(resolved).contains(anchor) ? null : "no heading with anchor #" + anchor + " in " + resolved;
    }

    /** GitHub's anchors of a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens, -1... for repeats. */
    static List<String> anchors(Path file) {
        List<String> anchors = new ArrayList<>();
        boolean inCode = false;
        for (String line : DocsFiles.lines(file)) {
            if (FENCE.matcher(line).find()) {
                inCode = !inCode;
            }
            if (inCode || !line.startsWith("#")) {
                continue;
            }
            String slug = line.replaceFirst("^#+\\s*", "")
                    .strip()
                    .toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            String unique = slug;
            for (int k = 1; anchors.contains(unique); k++) {
                unique = slug + "-" + k;
            }
            anchors.add(unique);
        }
        return anchors;
    }
}
