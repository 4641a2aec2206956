package dev.lanes.docs;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The public {@code dev.lanes} classes of the main (not test) classpath entries, by simple name: the snippets import them
 * without naming their package, so a class that moves to another package keeps its snippets compiling. A top-level
 * class wins over a nested one of the same simple name ({@code AccountCommand.Deposit} is found as {@code Deposit});
 * the nested types of the test kit's contract suites ({@code EventStoreContract.Deposited}) are their own sample
 * domain, not API, and are left out.
 */
final class ClasspathIndex {

    private static final String PREFIX = "dev/lanes/";

    private final Map<String, Set<String>> topLevel;
    private final Map<String, Set<String>> nested;

    private ClasspathIndex(Map<String, Set<String>> topLevel, Map<String, Set<String>> nested) {
        this.topLevel = topLevel;
        this.nested = nested;
    }

    /** The classpath the tests run with (surefire's test classpath, else {@code java.class.path}). */
    static String classpath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    static ClasspathIndex of(String classpath) {
        Map<String, Set<String>> topLevel = new TreeMap<>();
        Map<String, Set<String>> nested = new TreeMap<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            if (isMain(entry)) {
                for (String binaryName : classNames(Path.of(entry))) {
                    if (isPublic(binaryName) && !isContractSample(binaryName)) {
                        String name = binaryName.replace('$', '.');
                        (binaryName.contains("$") ? nested : topLevel)
                                .computeIfAbsent(name.substring(name.lastIndexOf('.') + 1), k -> new TreeSet<>())
                                .add(name);
                    }
                }
            }
        }
        return new ClasspathIndex(topLevel, nested);
    }

    /** The classes named {@code simpleName}: none, one, or several (then a snippet must import the one it means). */
    Set<String> classes(String simpleName) {
        Set<String> classes = topLevel.getOrDefault(simpleName, Set.of());
        return classes.isEmpty() ? nested.getOrDefault(simpleName, Set.of()) : classes;
    }

    private static boolean isMain(String entry) {
        return !entry.isBlank() && !entry.replace('\\', '/').endsWith("/test-classes") && !entry.endsWith("-tests.jar");
    }

    private static List<String> classNames(Path entry) {
        List<String> names = new ArrayList<>();
        if (Files.isDirectory(entry)) {
            Path base = entry.resolve(PREFIX);
            if (Files.isDirectory(base)) {
                try (Stream<Path> files = Files.walk(base)) {
                    files.map(f -> entry.relativize(f).toString().replace(File.separatorChar, '/'))
                            .forEach(f -> addClass(names, f));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot list the classes of " + entry, e);
                }
            }
        } else if (entry.toString().endsWith(".jar") && Files.isRegularFile(entry)) {
            try (JarFile jar = new JarFile(entry.toFile())) {
                jar.stream().forEach(e -> addClass(names, e.getName()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list the classes of " + entry, e);
            }
        }
        return names;
    }

    private static void addClass(List<String> names, String path) {
        if (path.startsWith(PREFIX)
                && path.endsWith(".class")
                && !path.matches(".*\\$[^A-Za-z].*") // anonymous and local classes
                && !path.endsWith("package-info.class")
                && !path.endsWith("module-info.class")) {
            names.add(path.substring(0, path.length() - ".class".length()).replace('/', '.'));
        }
    }

    private static boolean isContractSample(String binaryName) {
        return binaryName.contains("$")
                && binaryName.substring(0, binaryName.indexOf('$')).endsWith("Contract");
    }

    private static boolean isPublic(String className) {
        try {
            return Modifier.isPublic(Class.forName(className, false, ClasspathIndex.class.getClassLoader())
                    .getModifiers());
        } catch (ClassNotFoundException | LinkageError e) {
            return false; // a class whose optional dependencies are absent: no snippet can use it either
        }
    }
}
