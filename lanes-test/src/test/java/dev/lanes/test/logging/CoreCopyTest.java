package dev.lanes.test.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * lanes-core's tests cannot depend on the test kit (it depends on lanes-core), so they have a copy of this package; the
 * copy must not drift from the original.
 */
class CoreCopyTest {
    /** The module directory is the working directory of a Maven test run. */
    private static final Path ORIGINAL = Path.of("src/main/java/dev/lanes/test/logging");

    private static final Path CORE_COPY = Path.of("../lanes-core/src/test/java/dev/lanes/test/logging");

    @Test
    void lanesCoresCopyOfThisPackageIsTheSameAsTheOriginal() throws IOException {
        for (String source : List.of("LogCapture.java", "LogLine.java", "StandardErrorCapture.java")) {
            assertThat(CORE_COPY.resolve(source))
                    .as("lanes-core's copy of %s", source)
                    .hasSameTextualContentAs(ORIGINAL.resolve(source));
        }
        try (var originals = Files.list(ORIGINAL)) {
            assertThat(originals.map(path -> path.getFileName().toString()))
                    .as("the sources of the package; a new one needs a copy in lanes-core too")
                    .containsExactlyInAnyOrder(
                            "LogCapture.java", "LogLine.java", "StandardErrorCapture.java", "package-info.java");
        }
    }
}
