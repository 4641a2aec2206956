package dev.lanes.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every package of every module's main sources is {@code @NullMarked} (NullAway checks nothing else), including
 * modules added later: the check reads the sources of every {@code <module>/src/main/java} of the repository, so it
 * also covers the modules built after {@code lanes-core}. A package split across modules (the jcstress checks live in
 * {@code dev.lanes.dispatch}) is covered by the one {@code package-info.java} any module holds for it.
 */
class NullMarkedSourcesTest {
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern NULL_MARKED =
            Pattern.compile("^@(org\\.jspecify\\.annotations\\.)?NullMarked\\b", Pattern.MULTILINE);

    @Test
    void everyPackageOfEveryModuleHasANullMarkedPackageInfo() {
        Path root = repositoryRoot();
        Map<String, Set<Path>> packages = new TreeMap<>();
        Set<String> nullMarked = new TreeSet<>();
        for (Path sources : mainSourceRoots(root)) {
            for (Path file : javaFiles(sources)) {
                String text = read(file);
                Matcher declared = PACKAGE.matcher(text);
                if (!declared.find()) {
                    continue;
                }
                String name = declared.group(1);
                if (file.getFileName().toString().equals("package-info.java")) {
                    if (NULL_MARKED.matcher(text).find()) {
                        nullMarked.add(name);
                    }
                } else {
                    packages.computeIfAbsent(name, n -> new TreeSet<>()).add(root.relativize(file.getParent()));
                }
            }
        }

        assertThat(packages).as("main source packages under %s", root).isNotEmpty();
        assertThat(packages.keySet().stream()
                        .filter(name -> !nullMarked.contains(name))
                        .map(name -> name + " " + packages.get(name)))
                .as("packages without a package-info.java annotated @NullMarked")
                .isEmpty();
    }

    /** The reactor root: the nearest directory up from the working directory whose pom lists {@code lanes-core}. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path pom = dir.resolve("pom.xml");
            if (Files.isRegularFile(pom) && read(pom).contains("<module>lanes-core</module>")) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no reactor pom listing lanes-core above " + Path.of("").toAbsolutePath());
    }

    private static List<Path> mainSourceRoots(Path root) {
        try (Stream<Path> modules = Files.list(root)) {
            return modules.map(module -> module.resolve("src/main/java"))
                    .filter(Files::isDirectory)
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> javaFiles(Path sources) {
        try (Stream<Path> files = Files.walk(sources)) {
            return files.filter(file -> file.toString().endsWith(".java"))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
