package dev.lanes.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code lanes-bom} lists every library module of the build, at the build's version: a module added to the reactor
 * must be added to the BOM or named here as one that is not a library.
 */
class BomCompletenessTest {
    /**
     * Modules that are not libraries a user depends on: the BOM itself, tools, samples, measurement harnesses and the
     * unpublished helpers of the build's own tests.
     */
    private static final Set<String> NOT_LIBRARIES = Set.of(
            "lanes-bom",
            "lanes-benchmarks",
            "lanes-cli",
            "lanes-examples",
            "lanes-example-service",
            "lanes-jcstress",
            "lanes-test-support");

    private static final Path ROOT = Path.of("..");

    @Test
    void theBomManagesEveryLibraryModule() throws IOException {
        Set<String> libraries = new TreeSet<>(all(read("pom.xml"), "<module>([^<]+)</module>"));
        libraries.removeAll(NOT_LIBRARIES);

        assertThat(managedArtifacts()).containsExactlyInAnyOrderElementsOf(libraries);
    }

    @Test
    void theBomHasTheBuildsVersion() throws IOException {
        String parentVersion =
                first(read("pom.xml"), "<artifactId>lanes-parent</artifactId>\\s*<version>([^<]+)</version>");
        String bomVersion =
                first(read("lanes-bom/pom.xml"), "<artifactId>lanes-bom</artifactId>\\s*<version>([^<]+)</version>");

        assertThat(bomVersion).as("lanes-bom's <version>").isEqualTo(parentVersion);
    }

    private static Set<String> managedArtifacts() throws IOException {
        String bom = read("lanes-bom/pom.xml");
        String managed = first(bom, "(?s)<dependencyManagement>(.*)</dependencyManagement>");
        return new TreeSet<>(all(managed, "<artifactId>([^<]+)</artifactId>"));
    }

    private static String read(String path) throws IOException {
        return Files.readString(ROOT.resolve(path));
    }

    private static String first(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertThat(matcher.find()).as("%s in the pom", regex).isTrue();
        return matcher.group(1).trim();
    }

    private static Set<String> all(String text, String regex) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = Pattern.compile(regex).matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1).trim());
        }
        return found;
    }
}
