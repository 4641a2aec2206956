package dev.lanes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.lanes.lifecycle.ActivityLease;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class LanesRuntimeTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();

    private RecordingComponent component(String name) {
        return new RecordingComponent(name, calls);
    }

    private LanesRuntime runtime(Duration timeout, Duration quiet, RuntimeComponent... components) {
        return new LanesRuntime(List.of(components), timeout, quiet, time);
    }

    @Nested
    class Construction {
        @Test
        void rejectsBadSettingsNamingTheValue() {
            RecordingComponent a = component("a");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new LanesRuntime(List.of(a), Duration.ZERO, Duration.ZERO))
                    .withMessage("shutdownTimeout must be positive: PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new LanesRuntime(List.of(a), Duration.ofSeconds(1), Duration.ofMillis(-1)))
                    .withMessage("quietPeriod must not be negative: PT-0.001S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new LanesRuntime(List.of(a), Duration.ofSeconds(1), Duration.ofSeconds(1)))
                    .withMessage("quietPeriod must be shorter than shutdownTimeout: PT1S >= PT1S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new LanesRuntime(List.of(a, a), Duration.ofSeconds(1), Duration.ZERO))
                    .withMessage("Runtime component a is registered more than once");
        }
    }

    @Nested
    class Start {
        @Test
        void preparesAllInOrderBeforeStartingAnyThenStopsInReverse() {
            RecordingComponent first = component("first");
            RecordingComponent second = component("second");
            Sinks.Empty<Void> slowPrepare = Sinks.empty();
            first.onPrepare = slowPrepare::asMono;
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, first, second);

            StepVerifier.create(runtime.start())
                    .expectSubscription()
                    .then(() -> assertThat(calls).containsExactly("prepare:first"))
                    .then(slowPrepare::tryEmitEmpty)
                    .verifyComplete();
            assertThat(calls).containsExactly("prepare:first", "prepare:second", "start:first", "start:second");
            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.RUNNING);

            calls.clear();
            ShutdownReport report = shutdownNow(runtime);
            assertThat(calls).containsExactly("quiesce:first", "quiesce:second", "stop:second", "stop:first");
            assertThat(report.graceful()).isTrue();
            assertThat(report.components())
                    .extracting(ComponentReport::outcome)
                    .containsOnly(ComponentReport.Outcome.DRAINED);
        }

        @Test
        void startsWhenSubscribedFromANonBlockingThread() {
            RecordingComponent a = component("a");
            RecordingComponent b = component("b");
            LanesRuntime runtime = runtime(Duration.ofSeconds(1), Duration.ZERO, a, b);

            runtime.start()
                    .subscribeOn(reactor.core.scheduler.Schedulers.parallel())
                    .block(PROMPTLY);

            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.RUNNING);
            assertThat(calls).containsExactly("prepare:a", "prepare:b", "start:a", "start:b");
        }

        @Test
        void aSecondStartFailsNamingTheState() {
            LanesRuntime runtime = runtime(Duration.ofSeconds(1), Duration.ZERO, component("a"));
            runtime.start().block(PROMPTLY);
            StepVerifier.create(runtime.start())
                    .expectErrorSatisfies(error -> assertThat(error)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage("LanesRuntime can only be started once; current state: RUNNING"))
                    .verify(PROMPTLY);
        }

        @Test
        void aFailingPrepareRollsBackTheEnteredComponentsInReverse() {
            RecordingComponent first = component("first");
            RecordingComponent failing = component("failing");
            RecordingComponent third = component("third");
            IllegalStateException boom = new IllegalStateException("cannot connect");
            failing.onPrepare = () -> Mono.error(boom);
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, first, failing, third);

            StepVerifier.create(runtime.start())
                    .expectErrorMatches(error -> error == boom)
                    .verify(PROMPTLY);

            assertThat(calls)
                    .containsExactly(
                            "prepare:first",
                            "prepare:failing",
                            "quiesce:first",
                            "quiesce:failing",
                            "stop:failing",
                            "stop:first");
            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
            assertThat(runtime.context().tryAcquire()).isNull();
        }

        @Test
        void aFailingStartWhoseRollbackFailsForcesEveryComponentWithTheCleanupFailureSuppressed() {
            RecordingComponent first = component("first");
            RecordingComponent second = component("second");
            IllegalStateException startFailure = new IllegalStateException("start failed");
            IllegalStateException stopFailure = new IllegalStateException("stop failed");
            second.onStart = () -> {
                throw startFailure;
            };
            first.onStop = () -> Mono.error(stopFailure);
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, first, second);

            StepVerifier.create(runtime.start())
                    .expectErrorSatisfies(error -> {
                        assertThat(error).isSameAs(startFailure);
                        assertThat(error.getSuppressed()).containsExactly(stopFailure);
                    })
                    .verify(PROMPTLY);
            assertThat(calls)
                    .containsExactly(
                            "prepare:first",
                            "prepare:second",
                            "start:first",
                            "start:second",
                            "quiesce:first",
                            "quiesce:second",
                            "stop:second",
                            "stop:first",
                            "force:second",
                            "force:first");
        }
    }

    @Nested
    class QuietPeriod {
        @Test
        void admissionClosesAfterAQuietPeriodThatActivityResets() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ofSeconds(1), a);
            runtime.start().block(PROMPTLY);
            RuntimeContext context = runtime.context();

            runtime.shutdown().subscribe();
            time.advanceTimeBy(Duration.ofMillis(500));
            ActivityLease tail = context.tryAcquire();
            assertThat(tail).as("tail work is admitted during the quiet period").isNotNull();
            tail.close();
            time.advanceTimeBy(Duration.ofMillis(999));
            assertThat(context.tryAcquire())
                    .as("still admitting 1499 ms in")
                    .isNotNull()
                    .satisfies(ActivityLease::close);

            time.advanceTimeBy(Duration.ofMillis(999));
            assertThat(calls).doesNotContain("quiesce:a");
            time.advanceTimeBy(Duration.ofMillis(1));
            assertThat(context.tryAcquire()).isNull();
            assertThat(calls).contains("quiesce:a", "stop:a");
            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
        }

        @Test
        void whenStoppingActionsRunOnceAtTheStartOfTheShutdownBeforeTheQuietPeriodAndAtOnceWhenLate() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ofSeconds(1), a);
            runtime.start().block(PROMPTLY);
            RuntimeContext context = runtime.context();
            context.whenStopping(() -> calls.add("stopping:early"));
            assertThat(calls).doesNotContain("stopping:early");

            runtime.shutdown().subscribe();

            assertThat(calls).containsOnlyOnce("stopping:early").doesNotContain("quiesce:a");
            context.whenStopping(() -> calls.add("stopping:late"));
            assertThat(calls).containsOnlyOnce("stopping:late");
            time.advanceTimeBy(Duration.ofSeconds(1));
            assertThat(calls)
                    .containsSubsequence("stopping:early", "stopping:late", "quiesce:a")
                    .containsOnlyOnce("stopping:early");
        }

        @Test
        void aForceAlsoRunsTheWhenStoppingActionsAndAStandaloneContextNever() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ofSeconds(1), a);
            runtime.start().block(PROMPTLY);
            runtime.context().whenStopping(() -> calls.add("stopping"));
            RuntimeContext.standalone().whenStopping(() -> calls.add("standalone"));

            runtime.forceStop();

            assertThat(calls).contains("stopping").doesNotContain("standalone");
        }

        @Test
        void shutdownWaitsForOpenLeasesBeforeStoppingComponents() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ZERO, a);
            runtime.start().block(PROMPTLY);
            ActivityLease open = runtime.context().tryAcquire();

            runtime.shutdown().subscribe();
            time.advanceTimeBy(Duration.ofSeconds(5));
            assertThat(calls).doesNotContain("quiesce:a", "stop:a");

            open.close();
            open.close();
            time.advanceTime();
            assertThat(calls).containsSubsequence("quiesce:a", "stop:a");
            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
        }
    }

    @Nested
    class DeadlineAndForce {
        @Test
        void theDeadlineForcesHangingStopsInReverseAndTheReportSaysSo() {
            RecordingComponent first = component("first");
            RecordingComponent hanging = component("hanging");
            hanging.onStop = Mono::never;
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, first, hanging);
            runtime.start().block(PROMPTLY);
            List<ShutdownReport> reports = new CopyOnWriteArrayList<>();
            runtime.shutdown().subscribe(reports::add);

            time.advanceTimeBy(Duration.ofMillis(9_999));
            assertThat(reports).isEmpty();
            time.advanceTimeBy(Duration.ofMillis(1));

            assertThat(reports).singleElement().satisfies(report -> {
                assertThat(report.forced()).isTrue();
                assertThat(report.failure())
                        .isInstanceOf(TimeoutException.class)
                        .hasMessage("LanesRuntime shutdown timed out after PT10S");
                assertThat(report.components())
                        .extracting(ComponentReport::outcome)
                        .containsExactly(ComponentReport.Outcome.FORCED, ComponentReport.Outcome.FORCED);
                assertThat(report.toString()).contains("FORCED").contains("hanging");
            });
            assertThat(calls).containsSubsequence("stop:hanging", "force:hanging", "force:first");
            assertThat(calls).doesNotContain("stop:first");
            StepVerifier.create(runtime.stopGracefully())
                    .expectError(TimeoutException.class)
                    .verify(PROMPTLY);
        }

        @Test
        void anExplicitForceWhileGracefulStopWaitsOnAnOpenLeaseReturnsAtOnce() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ZERO, a);
            runtime.start().block(PROMPTLY);
            ActivityLease open = runtime.context().tryAcquire();
            runtime.shutdown().subscribe();
            time.advanceTime();

            runtime.forceStop();

            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
            assertThat(runtime.context().tryAcquire()).isNull();
            assertThat(calls).contains("force:a").doesNotContain("stop:a");
            ShutdownReport report = runtime.shutdown().block(PROMPTLY);
            assertThat(report.forced()).isTrue();
            assertThat(report.cut()).isEqualTo(1);
            assertThat(report.failure()).isNull();
            open.close();
        }

        @Test
        void forceBeforeStartForcesEverythingAndStartIsRefused() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(1), Duration.ZERO, a);
            runtime.forceStop();
            assertThat(calls).containsExactly("force:a");
            StepVerifier.create(runtime.start())
                    .expectError(IllegalStateException.class)
                    .verify(PROMPTLY);
        }
    }

    @Nested
    class SharedShutdown {
        @Test
        void concurrentCallersShareOneShutdownAndCancellingOneDoesNotCancelIt() throws Exception {
            RecordingComponent a = component("a");
            Sinks.Empty<Void> stopGate = Sinks.empty();
            a.onStop = stopGate::asMono;
            LanesRuntime runtime = new LanesRuntime(List.of(a), Duration.ofSeconds(30), Duration.ZERO);
            runtime.start().block(PROMPTLY);

            runtime.shutdown().subscribe().dispose();
            ExecutorService callers = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<ShutdownReport>> results = new java.util.ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    results.add(callers.submit(() -> {
                        go.await();
                        return runtime.shutdown().block(Duration.ofSeconds(10));
                    }));
                }
                go.countDown();
                org.awaitility.Awaitility.await().atMost(PROMPTLY).until(() -> calls.contains("stop:a"));
                stopGate.tryEmitEmpty();
                for (Future<ShutdownReport> result : results) {
                    assertThat(result.get(10, TimeUnit.SECONDS).graceful()).isTrue();
                }
            } finally {
                callers.shutdownNow();
            }
            assertThat(calls.stream().filter("stop:a"::equals)).hasSize(1);
        }
    }

    @Nested
    class Failures {
        @RegisterExtension
        final LogCapture logs = LogCapture.standardError();

        @Test
        void aFatalFailureWhileRunningShutsDownWithThatErrorAndLaterOnesSuppressed() {
            RecordingComponent a = component("a");
            RecordingComponent b = component("b");
            Sinks.Empty<Void> stopGate = Sinks.empty();
            a.onStop = stopGate::asMono;
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ofSeconds(5), a, b);
            runtime.start().block(PROMPTLY);
            IllegalStateException first = new IllegalStateException("scheduler refused work");
            IllegalStateException later = new IllegalStateException("source failed");

            b.context.reportFailure(first);
            assertThat(a.context.tryAcquire())
                    .as("no quiet period after a fatal failure")
                    .isNull();
            a.context.reportFailure(later);
            stopGate.tryEmitEmpty();
            IllegalStateException afterEnd = new IllegalStateException("too late");
            a.context.reportFailure(afterEnd);

            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
            assertThat(calls).containsSubsequence("quiesce:a", "quiesce:b", "stop:b", "stop:a");
            StepVerifier.create(runtime.stopGracefully())
                    .expectErrorSatisfies(error -> {
                        assertThat(error).isSameAs(first);
                        assertThat(error.getSuppressed())
                                .as("sealed at the end")
                                .containsExactly(later);
                    })
                    .verify(PROMPTLY);
            assertThat(logs.lines(Level.ERROR))
                    .as("every fatal failure is logged with its stack trace, one after the end too")
                    .allSatisfy(line -> assertThat(line.logger()).isEqualTo(LanesRuntime.class.getName()))
                    .extracting(line -> line.details().lines().findFirst().orElse(""))
                    .containsExactly(first.toString(), later.toString(), afterEnd.toString());
        }

        @Test
        void aStopFailureIsReportedAndTheComponentForced() {
            RecordingComponent a = component("a");
            RecordingComponent b = component("b");
            IllegalStateException failure = new IllegalStateException("flush failed");
            b.onStop = () -> Mono.error(failure);
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ZERO, a, b);
            runtime.start().block(PROMPTLY);

            ShutdownReport report = shutdownNow(runtime);

            assertThat(report.failure()).isSameAs(failure);
            assertThat(report.components())
                    .extracting(ComponentReport::outcome)
                    .containsExactly(ComponentReport.Outcome.DRAINED, ComponentReport.Outcome.FAILED);
            assertThat(calls).containsSubsequence("stop:b", "stop:a", "force:b", "force:a");
        }
    }

    private ShutdownReport shutdownNow(LanesRuntime runtime) {
        List<ShutdownReport> reports = new CopyOnWriteArrayList<>();
        runtime.shutdown().subscribe(reports::add);
        time.advanceTime();
        assertThat(reports).hasSize(1);
        return reports.get(0);
    }
}
