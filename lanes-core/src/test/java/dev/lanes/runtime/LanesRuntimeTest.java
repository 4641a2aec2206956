package dev.lanes.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.tuple;

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
import java.util.stream.Stream;
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
        void theQuietPeriodDoesNotEndWhileAComponentHoldsWorkWithoutALeaseAndLooksAgainEveryPeriod() {
            RecordingComponent a = component("a");
            RecordingComponent b = component("b");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ofSeconds(1), a, b);
            runtime.start().block(PROMPTLY);
            b.unleased = true; // say, an exchange delivered to b and queued for a drain that has not run

            runtime.shutdown().subscribe();
            time.advanceTimeBy(Duration.ofSeconds(5));
            assertThat(calls).as("quiesced while b held unleased work").doesNotContain("quiesce:a", "quiesce:b");
            assertThat(runtime.context().tryAcquire())
                    .as("admission open 5 s in")
                    .isNotNull()
                    .satisfies(ActivityLease::close);

            b.unleased = false; // the drain staged it and its lease came and went
            time.advanceTimeBy(Duration.ofMillis(999));
            assertThat(calls).doesNotContain("quiesce:a");
            time.advanceTimeBy(Duration.ofMillis(1));
            assertThat(runtime.context().tryAcquire()).isNull();
            assertThat(calls).contains("quiesce:a", "quiesce:b", "stop:b", "stop:a");
            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
        }

        @Test
        void withNoQuietPeriodUnleasedWorkIsLookedAtAgainEveryMillisecond() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ZERO, a);
            runtime.start().block(PROMPTLY);
            a.unleased = true;

            runtime.shutdown().subscribe();
            time.advanceTimeBy(Duration.ofMillis(50));
            assertThat(calls).doesNotContain("quiesce:a");

            a.unleased = false;
            time.advanceTimeBy(Duration.ofMillis(1));
            assertThat(calls).contains("quiesce:a", "stop:a");
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
    class ReportedDurations {
        private static final Duration A_WHILE = Duration.ofMinutes(1);

        @RegisterExtension
        final LogCapture logs = LogCapture.standardError();

        private RecordingComponent stoppingIn(String name, Duration stopTime) {
            RecordingComponent component = component(name);
            component.onStop = () -> Mono.delay(stopTime, time).then();
            return component;
        }

        @Test
        void aGracefulShutdownReportsTheVirtualTimeOfEachPhaseAndOfEachComponentStop() {
            RecordingComponent slow = stoppingIn("slow", Duration.ofSeconds(2));
            RecordingComponent quick = stoppingIn("quick", Duration.ofMillis(500));
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ofSeconds(1), slow, quick);
            runtime.start().block(PROMPTLY);
            time.advanceTimeBy(A_WHILE);
            List<ShutdownReport> reports = new CopyOnWriteArrayList<>();

            runtime.shutdown().subscribe(reports::add);
            time.advanceTimeBy(Duration.ofMillis(500));
            ActivityLease tail = runtime.context().tryAcquire();
            time.advanceTimeBy(Duration.ofMillis(200));
            tail.close();
            time.advanceTimeBy(Duration.ofMillis(1_000));
            assertThat(calls).as("admission closed 1 s after the tail work").contains("stop:quick");
            time.advanceTimeBy(Duration.ofMillis(500));
            assertThat(calls).contains("stop:slow");
            time.advanceTimeBy(Duration.ofMillis(1_999));
            assertThat(reports).isEmpty();
            time.advanceTimeBy(Duration.ofMillis(1));

            assertThat(reports).singleElement().satisfies(report -> {
                assertThat(report.graceful()).isTrue();
                assertThat(report.duration()).isEqualTo(Duration.ofMillis(4_200));
                assertThat(report.deadline()).isEqualTo(Duration.ofSeconds(30));
                assertThat(report.quietWait()).isEqualTo(Duration.ofMillis(1_700));
                assertThat(report.drainWait()).isZero();
                assertThat(report.components())
                        .extracting(ComponentReport::name, ComponentReport::stopDuration)
                        .containsExactly(tuple("slow", Duration.ofSeconds(2)), tuple("quick", Duration.ofMillis(500)));
                assertThat(report.toString())
                        .startsWith("Lanes runtime shutdown: graceful in 4200 ms of a 30000 ms deadline"
                                + " (quiet 1700 ms, drain 0 ms); leases admitted 1, open at close 0, cut 0");
            });
        }

        @Test
        void aFatalFailureClosesAdmissionAtOnceAndTheReportMeasuresTheDrainOfTheOpenLease() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ofSeconds(5), a);
            runtime.start().block(PROMPTLY);
            time.advanceTimeBy(A_WHILE);
            ActivityLease open = runtime.context().tryAcquire();
            IllegalStateException fault = new IllegalStateException("store unreachable");

            a.context.reportFailure(fault);
            time.advanceTimeBy(Duration.ofSeconds(3));
            assertThat(calls).doesNotContain("stop:a");
            open.close();

            ShutdownReport report = runtime.shutdown().block(PROMPTLY);
            assertThat(report.failure()).isSameAs(fault);
            assertThat(report.forced()).isFalse();
            assertThat(report.duration()).isEqualTo(Duration.ofSeconds(3));
            assertThat(report.quietWait()).isZero();
            assertThat(report.drainWait()).isEqualTo(Duration.ofSeconds(3));
            assertThat(report.openAtClose()).isEqualTo(1);
            assertFaultsLogged(logs, fault);
        }

        @Test
        void theDeadlineFiresAtExactlyTheConfiguredVirtualInstantAndTheReportSaysHowFarEachPhaseGot() {
            RecordingComponent first = component("first");
            RecordingComponent hanging = component("hanging");
            hanging.onStop = Mono::never;
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ofSeconds(2), first, hanging);
            runtime.start().block(PROMPTLY);
            time.advanceTimeBy(A_WHILE);
            List<ShutdownReport> reports = new CopyOnWriteArrayList<>();

            runtime.shutdown().subscribe(reports::add);
            time.advanceTimeBy(Duration.ofSeconds(10).minusNanos(1));
            assertThat(reports).isEmpty();
            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPING);
            assertThat(calls).contains("stop:hanging").doesNotContain("force:hanging");
            time.advanceTimeBy(Duration.ofNanos(1));

            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
            assertThat(reports).singleElement().satisfies(report -> {
                assertThat(report.forced()).isTrue();
                assertThat(report.duration()).isEqualTo(Duration.ofSeconds(10));
                assertThat(report.quietWait()).isEqualTo(Duration.ofSeconds(2));
                assertThat(report.drainWait()).isZero();
                assertThat(report.components())
                        .extracting(ComponentReport::outcome, ComponentReport::stopDuration)
                        .containsExactly(
                                tuple(ComponentReport.Outcome.FORCED, Duration.ZERO),
                                tuple(ComponentReport.Outcome.FORCED, Duration.ZERO));
                assertThat(report.toString())
                        .startsWith("Lanes runtime shutdown: FORCED in 10000 ms of a 10000 ms deadline"
                                + " (quiet 2000 ms, drain 0 ms)");
            });
        }

        @Test
        void theDeadlineCutsADrainShortAndTheReportCountsTheCutLease() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ofSeconds(1), a);
            runtime.start().block(PROMPTLY);
            time.advanceTimeBy(A_WHILE);
            ActivityLease open = runtime.context().tryAcquire();

            IllegalStateException brokerGone = new IllegalStateException("broker gone");
            a.context.reportFailure(brokerGone);
            runtime.shutdown().subscribe();
            time.advanceTimeBy(Duration.ofSeconds(10));

            ShutdownReport report = runtime.shutdown().block(PROMPTLY);
            assertThat(report.forced()).isTrue();
            assertThat(report.duration()).isEqualTo(Duration.ofSeconds(10));
            assertThat(report.quietWait()).isZero();
            assertThat(report.drainWait()).isEqualTo(Duration.ofSeconds(10));
            assertThat(report.cut()).isEqualTo(1);
            assertThat(calls).contains("force:a").doesNotContain("stop:a");
            assertFaultsLogged(logs, brokerGone);
            open.close();
        }
    }

    @Nested
    class Transitions {
        @Test
        void aStartAfterTheStopIsRefusedNamingTheState() {
            RecordingComponent a = component("a");
            LanesRuntime runtime = runtime(Duration.ofSeconds(1), Duration.ZERO, a);

            ShutdownReport report = runtime.shutdown().block(PROMPTLY);

            assertThat(report.graceful()).isTrue();
            assertThat(report.duration()).isZero();
            assertThat(report.components())
                    .extracting(ComponentReport::outcome)
                    .containsExactly(ComponentReport.Outcome.NOT_STARTED);
            StepVerifier.create(runtime.start())
                    .expectErrorSatisfies(error -> assertThat(error)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage("LanesRuntime can only be started once; current state: STOPPED"))
                    .verify(PROMPTLY);
            assertThat(calls).isEmpty();
        }

        @Test
        void aStartWhileStartingOrStoppingIsRefusedNamingThatState() {
            RecordingComponent a = component("a");
            Sinks.Empty<Void> slowPrepare = Sinks.empty();
            a.onPrepare = slowPrepare::asMono;
            a.onStop = Mono::never;
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, a);

            runtime.start().subscribe();
            StepVerifier.create(runtime.start())
                    .expectErrorMessage("LanesRuntime can only be started once; current state: STARTING")
                    .verify(PROMPTLY);
            slowPrepare.tryEmitEmpty();
            runtime.shutdown().subscribe();
            time.advanceTime();
            StepVerifier.create(runtime.start())
                    .expectErrorMessage("LanesRuntime can only be started once; current state: STOPPING")
                    .verify(PROMPTLY);
            assertThat(calls).containsExactly("prepare:a", "start:a", "quiesce:a", "stop:a");
        }

        @Test
        void aStopDuringStartupCancelsItAndTheReportCountsFromTheRequest() {
            RecordingComponent first = component("first");
            RecordingComponent second = component("second");
            Sinks.Empty<Void> slowPrepare = Sinks.empty();
            first.onPrepare = slowPrepare::asMono;
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, first, second);
            time.advanceTimeBy(Duration.ofMinutes(1));
            List<Throwable> startErrors = new CopyOnWriteArrayList<>();
            runtime.start().subscribe(unused -> {}, startErrors::add);

            runtime.shutdown().subscribe();
            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STARTING);
            time.advanceTimeBy(Duration.ofSeconds(3));
            slowPrepare.tryEmitEmpty();

            assertThat(startErrors)
                    .singleElement()
                    .satisfies(
                            error -> assertThat(error)
                                    .isInstanceOf(IllegalStateException.class)
                                    .hasMessage(
                                            "LanesRuntime startup was cancelled by shutdown; current state: STARTING (stop requested)"));
            assertThat(calls).containsExactly("prepare:first", "quiesce:first", "stop:first");
            ShutdownReport report = runtime.shutdown().block(PROMPTLY);
            assertThat(report.duration()).isEqualTo(Duration.ofSeconds(3));
            assertThat(report.components())
                    .extracting(ComponentReport::outcome)
                    .containsExactly(ComponentReport.Outcome.DRAINED, ComponentReport.Outcome.NOT_STARTED);
        }

        @Test
        void aRollbackThatHangsIsForcedAtTheShutdownDeadline() {
            RecordingComponent hanging = component("hanging");
            RecordingComponent failing = component("failing");
            hanging.onStop = Mono::never;
            IllegalStateException cannotConnect = new IllegalStateException("cannot connect");
            failing.onPrepare = () -> Mono.error(cannotConnect);
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, hanging, failing);

            StepVerifier.create(runtime.start())
                    .expectSubscription()
                    .then(() -> time.advanceTimeBy(Duration.ofSeconds(10).minusNanos(1)))
                    .then(() -> assertThat(calls).doesNotContain("force:hanging"))
                    .then(() -> time.advanceTimeBy(Duration.ofNanos(1)))
                    .expectErrorMatches(error -> error == cannotConnect)
                    .verify(PROMPTLY);

            assertThat(calls).containsSubsequence("stop:failing", "stop:hanging", "force:failing", "force:hanging");
            ShutdownReport report = runtime.shutdown().block(PROMPTLY);
            assertThat(report.forced()).isTrue();
            assertThat(report.duration()).isEqualTo(Duration.ofSeconds(10));
            assertThat(report.failure()).isSameAs(cannotConnect);
            assertThat(cannotConnect.getSuppressed())
                    .singleElement()
                    .satisfies(timeout -> assertThat(timeout).isInstanceOf(TimeoutException.class));
        }

        @Test
        void aForceDuringStartupStopsItThereAndOnlyTheEnteredComponentIsReportedForced() {
            RecordingComponent first = component("first");
            RecordingComponent second = component("second");
            Sinks.Empty<Void> slowPrepare = Sinks.empty();
            first.onPrepare = slowPrepare::asMono;
            LanesRuntime runtime = runtime(Duration.ofSeconds(10), Duration.ZERO, first, second);
            List<Throwable> startErrors = new CopyOnWriteArrayList<>();
            runtime.start().subscribe(unused -> {}, startErrors::add);

            runtime.forceStop();
            slowPrepare.tryEmitEmpty();

            assertThat(runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
            assertThat(calls).containsExactly("prepare:first", "force:second", "force:first");
            assertThat(startErrors)
                    .singleElement()
                    .satisfies(error -> assertThat(error)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessage("LanesRuntime startup was cancelled by shutdown; current state: STOPPED"));
            ShutdownReport report = runtime.shutdown().block(PROMPTLY);
            assertThat(report.forced()).isTrue();
            assertThat(report.failure()).isNull();
            assertThat(report.components())
                    .extracting(ComponentReport::outcome)
                    .containsExactly(ComponentReport.Outcome.FORCED, ComponentReport.Outcome.NOT_STARTED);
        }

        @Test
        void aForceThatComesWhileAFailedStopIsBeingForcedForcesEachComponentOnce() throws Exception {
            RecordingComponent a = component("a");
            RecordingComponent b = component("b");
            IllegalStateException flushFailed = new IllegalStateException("flush failed");
            b.onStop = () -> Mono.error(flushFailed);
            LanesRuntime runtime = runtime(Duration.ofSeconds(30), Duration.ZERO, a, b);
            runtime.start().block(PROMPTLY);
            ExecutorService other = Executors.newSingleThreadExecutor();
            java.util.concurrent.atomic.AtomicBoolean firstForce = new java.util.concurrent.atomic.AtomicBoolean(true);
            b.onForce = () -> {
                if (firstForce.getAndSet(false)) {
                    try {
                        other.submit(runtime::forceStop).get(5, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
            };
            try {
                ShutdownReport report = shutdownNow(runtime);

                assertThat(calls.stream().filter(call -> call.startsWith("force:")))
                        .containsExactly("force:b", "force:a");
                assertThat(report.forced()).isTrue();
                assertThat(report.failure()).isSameAs(flushFailed);
                assertThat(report.components())
                        .extracting(ComponentReport::outcome)
                        .containsExactly(ComponentReport.Outcome.DRAINED, ComponentReport.Outcome.FAILED);
            } finally {
                other.shutdownNow();
            }
        }
    }

    @Nested
    class Races {
        private static final int ROUNDS = 500;

        @RegisterExtension
        final LogCapture logs = LogCapture.standardError();

        private final List<Throwable> faults = new CopyOnWriteArrayList<>();

        /**
         * Start, shutdown, force, a fatal fault and the timer race; whatever wins, the runtime ends STOPPED with one
         * report, every component goes through each lifecycle call at most once, and the report agrees with the calls.
         */
        @Test
        void startStopForceAndAFaultRacingEndInOneConsistentStopWithEachTransitionOnce() {
            for (int round = 0; round < ROUNDS; round++) {
                raceOnce(round);
            }
            assertFaultsLogged(logs, faults.toArray(Throwable[]::new));
        }

        private void raceOnce(int round) {
            List<String> log = new CopyOnWriteArrayList<>();
            VirtualTimeScheduler clock = VirtualTimeScheduler.create();
            RecordingComponent a = new RecordingComponent("a", log);
            RecordingComponent b = new RecordingComponent("b", log);
            IllegalStateException stopFailure = new IllegalStateException("stop failed");
            IllegalStateException fault = new IllegalStateException("fault");
            boolean failingStop = round % 2 == 1;
            if (failingStop) {
                b.onStop = () -> Mono.error(stopFailure);
            }
            LanesRuntime runtime = new LanesRuntime(List.of(a, b), Duration.ofSeconds(10), Duration.ZERO, clock);
            List<ShutdownReport> reports = new CopyOnWriteArrayList<>();
            List<Throwable> startErrors = new CopyOnWriteArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
            List<Runnable> racers = new java.util.ArrayList<>(List.of(
                    () -> runtime.start().subscribe(unused -> {}, startErrors::add, () -> started.set(true)),
                    () -> runtime.shutdown().subscribe(reports::add),
                    clock::advanceTime));
            if (round % 3 != 0) {
                racers.add(runtime::forceStop);
            }
            if (round % 5 == 0) {
                racers.add(() -> runtime.context().reportFailure(fault));
                faults.add(fault);
            }

            reactor.test.util.RaceTestUtils.race(racers.toArray(Runnable[]::new));
            clock.advanceTime();

            String where = "round " + round + ", calls " + log;
            assertThat(runtime.state()).as(where).isEqualTo(LanesRuntime.State.STOPPED);
            ShutdownReport report = runtime.shutdown().block(PROMPTLY);
            assertThat(reports)
                    .as(where)
                    .hasSize(1)
                    .allSatisfy(each -> assertThat(each).isSameAs(report));
            for (String call : List.of("prepare", "start", "quiesce", "stop", "force")) {
                for (String name : List.of("a", "b")) {
                    assertThat(log.stream().filter((call + ":" + name)::equals))
                            .as(where)
                            .hasSizeLessThanOrEqualTo(1);
                }
            }
            assertThat(log.contains("force:a") && log.contains("force:b"))
                    .as("forced components agree with the report: " + where + ", " + report)
                    .isEqualTo(report.forced())
                    .isEqualTo(log.contains("force:a") || log.contains("force:b"));
            for (ComponentReport component : report.components()) {
                String name = component.name();
                boolean consistent = switch (component.outcome()) {
                    case NOT_STARTED -> !log.contains("prepare:" + name);
                    case DRAINED -> log.contains("stop:" + name);
                    case FORCED -> log.contains("prepare:" + name) && log.contains("force:" + name);
                    case FAILED -> log.contains("stop:" + name) && log.contains("force:" + name);
                };
                assertThat(consistent).as(component + " in " + where).isTrue();
            }
            if (started.get()) {
                assertThat(log).as(where).contains("start:a", "start:b");
                assertThat(startErrors).as(where).isEmpty();
            } else {
                assertThat(startErrors)
                        .as(where)
                        .singleElement()
                        .satisfies(error -> assertThat(error).isInstanceOfAny(IllegalStateException.class));
            }
            // a stop may still begin after a force won (no lock is held around component calls); its failure then
            // comes after the sealed report, but a component the report lists as FAILED always comes with the failure
            for (ComponentReport component : report.components()) {
                if (component.outcome() == ComponentReport.Outcome.FAILED) {
                    assertThat(component.failure()).as(where).isSameAs(stopFailure);
                    assertThat(report.failure()).as(where).isNotNull();
                }
            }
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

    /** Each fault logged once at ERROR by the runtime, with its stack trace, in this order. */
    private static void assertFaultsLogged(LogCapture logs, Throwable... faults) {
        assertThat(logs.lines(Level.ERROR))
                .allSatisfy(line -> {
                    assertThat(line.logger()).isEqualTo(LanesRuntime.class.getName());
                    assertThat(line.message()).isEqualTo("Lanes runtime component failure; shutting down");
                })
                .extracting(line -> line.details().lines().findFirst().orElse(""))
                .containsExactly(Stream.of(faults).map(Throwable::toString).toArray(String[]::new));
    }

    private ShutdownReport shutdownNow(LanesRuntime runtime) {
        List<ShutdownReport> reports = new CopyOnWriteArrayList<>();
        runtime.shutdown().subscribe(reports::add);
        time.advanceTime();
        assertThat(reports).hasSize(1);
        return reports.get(0);
    }
}
