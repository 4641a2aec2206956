package dev.lanes.test.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.PrintStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

class LogCaptureTest {
    /** The configuration parameter that enables the sample tests: set only when the tests below launch them. */
    private static final String LAUNCHED = "dev.lanes.test.logging.samples";

    private static final Logger log = LoggerFactory.getLogger(LogCaptureTest.class);

    @Nested
    class Parsing {
        @Test
        void aLogLineAndTheStackTraceAfterItAreOneLine() {
            String text = "1041 [main] ERROR dev.lanes.runtime.LanesRuntime - component failure; shutting down\n"
                    + "java.lang.IllegalStateException: scheduler refused work\n"
                    + "\tat dev.lanes.Some.method(Some.java:1)\n"
                    + "Caused by: java.util.concurrent.RejectedExecutionException: disposed\n"
                    + "\t... 12 more\n"
                    + "1048 [lanes-order-1] WARN dev.lanes.dispatch.InMemoryParkingLot - Parked a message\n";

            assertThat(StandardErrorCapture.parse(text))
                    .containsExactly(
                            new LogLine(
                                    Level.ERROR,
                                    "main",
                                    "dev.lanes.runtime.LanesRuntime",
                                    "component failure; shutting down",
                                    "java.lang.IllegalStateException: scheduler refused work\n"
                                            + "\tat dev.lanes.Some.method(Some.java:1)\n"
                                            + "Caused by: java.util.concurrent.RejectedExecutionException: disposed\n"
                                            + "\t... 12 more"),
                            new LogLine(
                                    Level.WARN,
                                    "lanes-order-1",
                                    "dev.lanes.dispatch.InMemoryParkingLot",
                                    "Parked a message",
                                    ""));
        }

        @Test
        void aLineWithoutTimeIsALogLineToo() {
            assertThat(StandardErrorCapture.parse("[lanes-postgres-5] WARN dev.lanes.postgres.X - ignoring it"))
                    .singleElement()
                    .satisfies(line -> {
                        assertThat(line.thread()).isEqualTo("lanes-postgres-5");
                        assertThat(line.message()).isEqualTo("ignoring it");
                    });
        }

        @Test
        void theJvmsReportOfAnUncaughtExceptionIsNotPartOfTheLogLineBeforeIt() {
            String text = "7153 [main] WARN dev.lanes.dispatch.AggregateDispatcher - refused a cancellation\n"
                    + "Exception in thread \"main\" java.util.concurrent.RejectedExecutionException: refused\n"
                    + "\tat dev.lanes.Some.method(Some.java:1)\n";

            assertThat(StandardErrorCapture.parse(text))
                    .singleElement()
                    .satisfies(line -> assertThat(line.details()).isEmpty());
        }

        @Test
        void outputBeforeTheFirstLogLineIsNoLogLine() {
            assertThat(StandardErrorCapture.parse("some output\n\tat x\n")).isEmpty();
            assertThat(StandardErrorCapture.parse("")).isEmpty();
        }
    }

    @Nested
    class AroundATest {
        /** Stands for the console: what the sample tests' captures let through. */
        @RegisterExtension
        final LogCapture console = LogCapture.standardError();

        @Test
        void aTestThatAssertsOnItsCaptureAndPassesLeavesTheConsoleQuiet() {
            TestExecutionSummary summary = launch(AssertingSample.class);

            assertThat(summary.getTestsSucceededCount()).isEqualTo(1);
            assertThat(console.text()).isEmpty();
        }

        @Test
        void aTestThatFailsGetsItsCapturePrintedAfterIt() {
            TestExecutionSummary summary = launch(FailingSample.class);

            assertThat(summary.getTestsFailedCount()).isEqualTo(1);
            assertThat(console.text())
                    .contains("--- System.err captured during " + FailingSample.class.getName()
                            + " failsAfterLogging() (the test failed) ---")
                    .contains("ERROR " + FailingSample.class.getName() + " - sample failure")
                    .contains("java.lang.IllegalStateException: broken on purpose")
                    .endsWith("--- end of captured System.err ---" + System.lineSeparator());
        }

        @Test
        void aTestThatNeverReadsItsCaptureGetsItPrintedAfterIt() {
            TestExecutionSummary summary = launch(UnreadSample.class);

            assertThat(summary.getTestsSucceededCount()).isEqualTo(1);
            assertThat(console.text())
                    .contains("(the test did not assert on it)")
                    .contains("ERROR " + UnreadSample.class.getName() + " - sample failure");
        }

        @Test
        void aCaptureFailingOnErrorFailsAPassingTestThatLoggedAnErrorAndPrintsWhy() {
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            TestExecutionSummary summary = launch(ErrorLoggingSample.class, listener);

            assertThat(summary.getTestsFailedCount()).isEqualTo(1);
            assertThat(summary.getTestsSucceededCount()).isEqualTo(1); // the one that logged a warning only
            assertThat(summary.getFailures())
                    .singleElement()
                    .satisfies(failure -> assertThat(failure.getException())
                            .isInstanceOf(AssertionError.class)
                            .hasMessage("1 line(s) logged at ERROR during the test (printed above), the first by "
                                    + ErrorLoggingSample.class.getName() + ": sample failure"));
            assertThat(console.text())
                    .contains("(it logged at ERROR)")
                    .doesNotContain("sample warning"); // checked, and passed: quiet
        }

        @Test
        void systemErrIsRestoredAfterEachTestWhateverItsOutcome() {
            PrintStream before = System.err;

            launch(AssertingSample.class);
            launch(FailingSample.class);

            assertThat(System.err).isSameAs(before);
            assertThat(console.text()).contains("(the test failed)");
        }
    }

    private static TestExecutionSummary launch(Class<?> sample) {
        return launch(sample, new SummaryGeneratingListener());
    }

    private static TestExecutionSummary launch(Class<?> sample, SummaryGeneratingListener listener) {
        LauncherFactory.create()
                .execute(
                        LauncherDiscoveryRequestBuilder.request()
                                .selectors(DiscoverySelectors.selectClass(sample))
                                .configurationParameter(LAUNCHED, "true")
                                .build(),
                        listener);
        return listener.getSummary();
    }

    static boolean launchedByLogCaptureTest(ExtensionContext context) {
        return context.getConfigurationParameter(LAUNCHED).isPresent();
    }

    @EnabledIf("dev.lanes.test.logging.LogCaptureTest#launchedByLogCaptureTest")
    static class AssertingSample {
        @RegisterExtension
        final LogCapture logs = LogCapture.standardError();

        @Test
        void logsAnErrorAndAssertsOnIt() {
            LoggerFactory.getLogger(AssertingSample.class)
                    .error("sample failure", new IllegalStateException("broken on purpose"));

            assertThat(logs.lines(Level.ERROR)).singleElement().satisfies(line -> {
                assertThat(line.logger()).isEqualTo(AssertingSample.class.getName());
                assertThat(line.thread()).isEqualTo(Thread.currentThread().getName());
                assertThat(line.message()).isEqualTo("sample failure");
                assertThat(line.details())
                        .startsWith("java.lang.IllegalStateException: broken on purpose")
                        .contains("\tat " + AssertingSample.class.getName());
            });
            assertThat(logs.lines(Level.WARN)).isEmpty();
        }
    }

    @EnabledIf("dev.lanes.test.logging.LogCaptureTest#launchedByLogCaptureTest")
    static class FailingSample {
        @RegisterExtension
        final LogCapture logs = LogCapture.standardError();

        @Test
        void failsAfterLogging() {
            LoggerFactory.getLogger(FailingSample.class)
                    .error("sample failure", new IllegalStateException("broken on purpose"));

            assertThat(logs.lines(Level.ERROR)).hasSize(1);
            fail("failing on purpose");
        }
    }

    @EnabledIf("dev.lanes.test.logging.LogCaptureTest#launchedByLogCaptureTest")
    static class UnreadSample {
        @RegisterExtension
        final LogCapture logs = LogCapture.standardError();

        @Test
        void logsWithoutLookingAtTheCapture() {
            LoggerFactory.getLogger(UnreadSample.class).error("sample failure");
        }
    }

    @EnabledIf("dev.lanes.test.logging.LogCaptureTest#launchedByLogCaptureTest")
    static class ErrorLoggingSample {
        @RegisterExtension
        final LogCapture logs = LogCapture.standardErrorFailingOnError();

        @Test
        void logsAnErrorAndPasses() {
            LoggerFactory.getLogger(ErrorLoggingSample.class).error("sample failure");
        }

        @Test
        void logsAWarningAndPasses() {
            LoggerFactory.getLogger(ErrorLoggingSample.class).warn("sample warning");
        }
    }
}
