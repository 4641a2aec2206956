package dev.lanes.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.lanes.internal.Internal;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.Test;

/**
 * The layering of {@code lanes-core}, as {@code docs/architecture.md} draws it, from the bottom:
 *
 * <ol>
 *   <li>{@code internal} (argument checks), {@code api} (names, ids, exception roots), {@code lifecycle} (component
 *       contracts: it depends on no other Lanes package);
 *   <li>message values ({@code messaging}), aggregates ({@code modeling}), the event store SPI ({@code
 *       eventsourcing}), flow control ({@code flow}), schedulers ({@code scheduler});
 *   <li>the lane engine ({@code dispatch}), then the in-memory routes ({@code internal.route});
 *   <li>the event bus ({@code event}), the command side ({@code command}, then its lane {@code command.lane}), the
 *       event side ({@code processing.saga}, {@code processing.deadletter}, {@code processing}, {@code
 *       processing.tracking});
 *   <li>{@code runtime} on top of every component, and the entry point {@code dev.lanes} on top of all.
 * </ol>
 */
class ArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.lanes");

    @Test
    void packagesHaveNoCycles() {
        slices().matching("dev.lanes.(**)").should().beFreeOfCycles().check(CORE);
    }

    @Test
    void lifecycleHoldsTheComponentContractsAndDependsOnNoOtherLanesPackage() {
        noClasses()
                .that()
                .resideInAPackage("dev.lanes.lifecycle..")
                .should()
                .dependOnClassesThat(
                        resideInAPackage("dev.lanes..").and(not(resideInAPackage("dev.lanes.lifecycle.."))))
                .because("every component builds on its contracts, so they must not build on any component")
                .check(CORE);
    }

    @Test
    void runtimeIsOnTopOnlyTheEntryPointDependsOnIt() {
        noClasses()
                .that()
                .resideOutsideOfPackages("dev.lanes.runtime..", "dev.lanes")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.lanes.runtime..")
                .because("components implement the contracts of lifecycle; the runtime that runs them is on top")
                .check(CORE);
    }

    @Test
    void nothingDependsOnTheEntryPoint() {
        noClasses()
                .that()
                .resideOutsideOfPackage("dev.lanes")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.lanes")
                .check(CORE);
    }

    @Test
    void messageValuesDependOnNoTransportAndNotOnTheLaneEngine() {
        noClasses()
                .that()
                .resideInAPackage("dev.lanes.messaging..")
                .should()
                .transitivelyDependOnClassesThat(resideInAnyPackage(
                        "dev.lanes.dispatch..",
                        "dev.lanes.internal.route..",
                        "dev.lanes.flow..",
                        "dev.lanes.command..",
                        "dev.lanes.event..",
                        "dev.lanes.scheduler.."))
                .because("commands and event streams are values that stores and buses of any kind carry")
                .check(CORE);
    }

    @Test
    void theEventStoreSpiDoesNotDependOnTheLaneEngineNorOnTheInMemoryTransports() {
        noClasses()
                .that()
                .resideInAPackage("dev.lanes.eventsourcing..")
                .should()
                .transitivelyDependOnClassesThat(resideInAnyPackage(
                        "dev.lanes.dispatch..",
                        "dev.lanes.internal.route..",
                        "dev.lanes.flow..",
                        "dev.lanes.scheduler..",
                        "dev.lanes.command..",
                        "dev.lanes.event..",
                        "dev.lanes.processing.."))
                .because(
                        "a store implementation (PostgreSQL, ...) needs the SPI and the message values, not the engine")
                .check(CORE);
    }

    @Test
    void internalIsUsedOnlyByLanesItself() {
        classes()
                .that()
                .resideInAPackage("dev.lanes.internal..")
                .should()
                .onlyHaveDependentClassesThat()
                .resideInAPackage("dev.lanes..")
                .because("internal is public only because several Lanes packages share it; it is not an API")
                .check(CORE);
    }

    @Test
    void theApiExposesNoInternalType() {
        codeUnits()
                .that()
                .arePublic()
                .and()
                .areDeclaredInClassesThat()
                .arePublic()
                .and(not(InternalElements.CODE_UNIT))
                .should(notMentionInTheirSignature(InternalElements.TYPE))
                .because("a public signature of the API is the API: what it names must be API too")
                .check(CORE);
    }

    @Test
    void theInternalPackagesAreMarkedInternal() {
        classes()
                .that()
                .resideInAPackage("dev.lanes.internal..")
                .should(beInternal())
                .because("@Internal is the one way Lanes marks what is not API (see docs/architecture.md)")
                .check(CORE);
    }

    @Test
    void onlyPublicTypesAreMarkedInternal() {
        classes()
                .that()
                .areAnnotatedWith(Internal.class)
                .and()
                .doNotHaveSimpleName("package-info")
                .should()
                .bePublic()
                .because("@Internal marks what is public only to be shared; a package-private type is hidden already")
                .check(CORE);
    }

    @Test
    void implementationsAreNotPublic() {
        classes()
                .that()
                .haveSimpleNameStartingWith("InMemory")
                .or()
                .haveSimpleNameStartingWith("Default")
                .should()
                .notBePublic()
                .because(
                        "users get implementations from factories (EventStores.inMemory(), AggregateSchedulers.perType(...)),"
                                + " so they can change freely")
                .check(CORE);
    }

    @Test
    void everyPackageIsNullMarked() {
        classes()
                .should(resideInANullMarkedPackage())
                .because("NullAway checks only @NullMarked code: an unmarked package is unchecked")
                .check(CORE);
    }

    private static ArchCondition<JavaCodeUnit> notMentionInTheirSignature(
            com.tngtech.archunit.base.DescribedPredicate<JavaClass> forbidden) {
        return new ArchCondition<>("not have a parameter or return type that is " + forbidden.getDescription()) {
            @Override
            public void check(JavaCodeUnit codeUnit, ConditionEvents events) {
                List<JavaClass> types = new ArrayList<>(codeUnit.getRawParameterTypes());
                types.add(codeUnit.getRawReturnType());
                for (JavaClass type : types) {
                    if (forbidden.test(type)) {
                        events.add(SimpleConditionEvent.violated(
                                codeUnit, codeUnit.getFullName() + " exposes " + type.getName()));
                    }
                }
            }
        };
    }

    private static ArchCondition<JavaClass> beInternal() {
        return new ArchCondition<>("be marked @Internal") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                if (!InternalElements.TYPE.test(javaClass)) {
                    events.add(SimpleConditionEvent.violated(
                            javaClass, javaClass.getName() + " is in an internal package without @Internal"));
                }
            }
        };
    }

    private static ArchCondition<JavaClass> resideInANullMarkedPackage() {
        return new ArchCondition<>("reside in a package annotated @NullMarked") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                if (!javaClass.getPackage().isAnnotatedWith(NullMarked.class)) {
                    events.add(SimpleConditionEvent.violated(
                            javaClass,
                            javaClass.getName() + ": package " + javaClass.getPackageName()
                                    + " has no package-info.java annotated @NullMarked"));
                }
            }
        };
    }
}
