package dev.lanes.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code lanes-test-support} is never published, so no published pom may need it: every module takes it at test scope,
 * except the test kit, whose contract suites use its log capture and which therefore bundles that package into its own
 * jar (the shade plugin) and leaves the dependency out of the pom it publishes.
 */
class TestSupportScopeTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern DEPENDENCY = Pattern.compile("(?s)<dependency>(.*?)</dependency>");

    @Test
    void everyModuleButTheKitTakesTheTestSupportAtTestScope() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (Path pom : modulePoms()) {
            String module = pom.getParent().getFileName().toString();
            for (String dependency : testSupportDependencies(Files.readString(pom))) {
                if (!module.equals("lanes-test") && !dependency.contains("<scope>test</scope>")) {
                    wrong.add(module);
                }
            }
        }
        assertThat(wrong)
                .as("modules that take lanes-test-support outside test scope")
                .isEmpty();
    }

    @Test
    void theKitBundlesTheLogCaptureAndPublishesNoDependencyOnTheTestSupport() throws IOException {
        String kit = Files.readString(ROOT.resolve("lanes-test/pom.xml"));

        assertThat(testSupportDependencies(kit))
                .as("lanes-test's dependency on lanes-test-support")
                .hasSize(1);
        assertThat(kit)
                .as("lanes-test's shade plugin")
                .contains("<artifactId>maven-shade-plugin</artifactId>")
                .contains("<include>dev.lanes:lanes-test-support</include>")
                .contains("<include>dev/lanes/test/logging/**</include>")
                .contains("<createDependencyReducedPom>true</createDependencyReducedPom>");
    }

    private static List<Path> modulePoms() throws IOException {
        try (Stream<Path> modules = Files.list(ROOT)) {
            return modules.map(module -> module.resolve("pom.xml"))
                    .filter(Files::isRegularFile)
                    .sorted()
                    .toList();
        }
    }

    private static List<String> testSupportDependencies(String pom) {
        List<String> found = new ArrayList<>();
        Matcher matcher = DEPENDENCY.matcher(pom);
        while (matcher.find()) {
            if (matcher.group(1).contains("<artifactId>lanes-test-support</artifactId>")) {
                found.add(matcher.group(1));
            }
        }
        return found;
    }
}
