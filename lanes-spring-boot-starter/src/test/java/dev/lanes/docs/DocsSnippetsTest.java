package dev.lanes.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every ```java block of README.md, docs/**.md and the modules' READMEs compiles against the project's classes (this
 * module's test classpath holds lanes-core, -examples, -test, -postgres, -kafka, -micrometer, -opentelemetry and the
 * starter), so a renamed method or a moved class breaks the build, not a reader's copy. How a block is wrapped, and how
 * one is marked as not compiled (with the reason), is {@link Snippet}'s marker; a block marked {@code excerpt=<file>}
 * must be a part of that (compiled) source file, line for line.
 */
class DocsSnippetsTest {

    @TempDir
    Path work;

    @Test
    void everyJavaSnippetOfTheDocsCompiles() throws IOException {
        Path root = DocsFiles.root();
        List<Snippet> snippets = DocsFiles.markdown(root).stream()
                .flatMap(f -> MarkdownSnippets.read(root, f).stream())
                .toList();
        List<Snippet> compiled = snippets.stream()
                .filter(s -> !s.skipped() && !s.marker().containsKey("excerpt"))
                .toList();
        assertThat(compiled).as("the ```java blocks to compile").hasSizeGreaterThan(10);

        List<String> errors = compile(compiled, ClasspathIndex.classpath());
        snippets.stream()
                .filter(s -> s.marker().containsKey("excerpt"))
                .forEach(s -> Excerpts.check(root, s).ifPresent(errors::add));

        assertThat(errors).as("snippets that do not compile").isEmpty();
    }

    private List<String> compile(List<Snippet> snippets, String classpath) throws IOException {
        ClasspathIndex index = ClasspathIndex.of(classpath);
        List<SnippetSource> sources = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < snippets.size(); i++) {
            SnippetSource source = SnippetSource.of(snippets.get(i), "Snippet" + i, index);
            errors.addAll(source.problems());
            sources.add(source);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac)
                .as("a JDK's compiler (the docs tests need a JDK, not a JRE)")
                .isNotNull();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            List<Path> paths = write(sources);
            Path out = Files.createDirectories(work.resolve("classes"));
            List<String> options = List.of("-classpath", classpath, "-d", out.toString(), "-proc:none", "-nowarn");
            javac.getTask(
                            Writer.nullWriter(),
                            files,
                            diagnostics,
                            options,
                            null,
                            files.getJavaFileObjectsFromPaths(paths))
                    .call();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add(describe(d, paths, sources, snippets));
                }
            }
        }
        return errors;
    }

    private List<Path> write(List<SnippetSource> sources) {
        List<Path> paths = new ArrayList<>();
        for (int i = 0; i < sources.size(); i++) {
            SnippetSource source = sources.get(i);
            String simple = source.className().substring("snippets.".length());
            Path file = work.resolve("src" + i).resolve("snippets").resolve(simple + ".java");
            try {
                Files.createDirectories(file.getParent());
                Files.writeString(file, source.text());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
            paths.add(file);
        }
        return paths;
    }

    private static String describe(
            Diagnostic<? extends JavaFileObject> d,
            List<Path> paths,
            List<SnippetSource> sources,
            List<Snippet> snippets) {
        int i = d.getSource() == null
                ? -1
                : indexOf(paths, Path.of(d.getSource().toUri()));
        if (i < 0) {
            return d.getMessage(Locale.ROOT);
        }
        Snippet snippet = snippets.get(i);
        long offset = d.getLineNumber() - sources.get(i).firstSnippetLine();
        String line = offset >= 0 && offset < snippet.code().size()
                ? snippet.file() + ":" + (snippet.line() + offset) + ": "
                        + snippet.code().get((int) offset).strip()
                : snippet.where() + " (in the wrapping: " + snippet.marker() + ")";
        return line + "\n    " + d.getMessage(Locale.ROOT).lines().collect(Collectors.joining("\n    "));
    }

    private static int indexOf(List<Path> paths, Path file) {
        for (int i = 0; i < paths.size(); i++) {
            if (paths.get(i)
                    .toAbsolutePath()
                    .normalize()
                    .equals(file.toAbsolutePath().normalize())) {
                return i;
            }
        }
        return -1;
    }
}
