package dev.lanes.runtime;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The runtime has one clock, its timer's: no class of the package reads the system clock on its own. */
class RuntimeTimeSourceTest {
    private static final JavaClasses RUNTIME = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lanes.runtime");

    @Test
    void theRuntimeReadsTimeOnlyFromItsTimer() {
        noClasses()
                .that()
                .resideInAPackage("dev.lanes.runtime")
                .should()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .callMethod(Instant.class, "now")
                .because("every duration the runtime reports comes from timer.now(NANOSECONDS), which a"
                        + " VirtualTimeScheduler drives in tests")
                .check(RUNTIME);
    }
}
