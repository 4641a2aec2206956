package dev.lanes.cli.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.lanes.architecture.InternalElements;
import dev.lanes.internal.Internal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No Lanes module uses what lanes-core marks {@link Internal} unless the element declares that module in {@link
 * Internal#exportedTo()}, as a qualified export of a module descriptor would. Checks the classes of every module of
 * this build found in the reactor's {@code target/classes} folders (lanes-cli builds after the others), so a module
 * added to the build is checked without editing this test.
 */
class InternalUseTest {
    private static final Path REACTOR = Path.of("..");

    @Test
    void noModuleUsesAnInternalElementOfCoreThatIsNotExportedToIt() throws IOException {
        List<Path> modules = moduleClasses();
        assertThat(modules)
                .as("the reactor's module class folders (run the build from the root)")
                .anySatisfy(path -> assertThat(path.toString()).contains("lanes-core"))
                .anySatisfy(path -> assertThat(path.toString()).contains("lanes-cli"));
        JavaClasses classes = new ClassFileImporter().importPaths(modules);

        List<String> violations = new ArrayList<>();
        for (JavaClass origin : classes) {
            if (origin.getPackageName().startsWith("dev.lanes.") && !isCore(origin, modules)) {
                for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
                    check(origin, dependency, violations);
                }
                for (JavaAccess<?> access : origin.getAccessesFromSelf()) {
                    access.getTarget()
                            .resolveMember()
                            .ifPresent(member -> check(origin, member, access.getDescription(), violations));
                }
            }
        }

        assertThat(new TreeSet<>(violations))
                .as("uses of @Internal elements outside lanes-core without a declared export")
                .isEmpty();
    }

    private static void check(JavaClass origin, Dependency dependency, List<String> violations) {
        JavaClass target = dependency.getTargetClass();
        if (target.isEquivalentTo(Internal.class)) {
            return; // the marker itself is for every module
        }
        InternalElements.marking(target).ifPresent(internal -> {
            if (!exportedTo(internal, origin)) {
                violations.add(dependency.getDescription());
            }
        });
    }

    private static void check(JavaClass origin, JavaMember member, String description, List<String> violations) {
        if (member.isAnnotatedWith(Internal.class)) {
            Internal internal = member.getAnnotationOfType(Internal.class);
            if (!exportedTo(internal, origin)) {
                violations.add(description);
            }
        } else if (member instanceof JavaCodeUnit) {
            InternalElements.marking(member.getOwner()).ifPresent(internal -> {
                if (!exportedTo(internal, origin)) {
                    violations.add(description);
                }
            });
        }
    }

    private static boolean exportedTo(Internal internal, JavaClass origin) {
        return Arrays.stream(internal.exportedTo())
                .anyMatch(root -> origin.getPackageName().equals(root)
                        || origin.getPackageName().startsWith(root + "."));
    }

    private static boolean isCore(JavaClass type, List<Path> modules) {
        return type.getSource()
                .map(source -> source.getUri().toString().contains("/lanes-core/target/"))
                .orElse(false);
    }

    private static List<Path> moduleClasses() throws IOException {
        try (Stream<Path> modules = Files.list(REACTOR)) {
            return modules.filter(module -> module.getFileName().toString().startsWith("lanes-"))
                    .map(module -> module.resolve("target/classes"))
                    .filter(Files::isDirectory)
                    .sorted()
                    .toList();
        }
    }
}
