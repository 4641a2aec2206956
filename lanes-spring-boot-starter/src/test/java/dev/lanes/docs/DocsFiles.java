package dev.lanes.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The Markdown files the docs tests read: README.md, docs/**.md and each module's README.md, from the project root. */
final class DocsFiles {

    private DocsFiles() {}

    /** The project root: the first directory at or above the working directory that holds README.md and docs/. */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("README.md")) && Files.isDirectory(d.resolve("docs"))) {
                return d;
            }
        }
        throw new IllegalStateException("no project root (README.md and docs/) at or above " + dir);
    }

    /** README.md, every .md under docs/ and every module's README.md, sorted. */
    static List<Path> markdown(Path root) {
        try (Stream<Path> docs = Files.walk(root.resolve("docs"));
                Stream<Path> modules = Files.list(root)) {
            Stream<Path> moduleReadmes =
                    modules.map(m -> m.resolve("README.md")).filter(Files::isRegularFile);
            return Stream.concat(
                            Stream.concat(Stream.of(root.resolve("README.md")), moduleReadmes),
                            docs.filter(p -> p.toString().endsWith(".md")))
                    .distinct()
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the Markdown files under " + root, e);
        }
    }

    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
