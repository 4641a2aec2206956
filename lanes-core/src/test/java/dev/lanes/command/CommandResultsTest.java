package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.command.StageNotReachedException.Storage;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Every wait ends, once, and what it says matches how far the command got. Time is virtual. */
class CommandResultsTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final CommandResults results = new CommandResults(TIMEOUT, time);

    private static CommandMessage command(String requestId) {
        return CommandMessage.of(AggregateId.of(ORDER, "o-1"), "Place", requestId);
    }

    private CompletableFuture<CommandResult> track(CommandMessage command, WaitStage stage) {
        return results.track(command, stage, TIMEOUT).outcome().toFuture();
    }

    private static StageNotReachedException notReached(CompletableFuture<CommandResult> outcome) {
        assertThat(outcome).isCompletedExceptionally();
        try {
            outcome.get();
            throw new AssertionError("completed normally");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(StageNotReachedException.class);
            return (StageNotReachedException) e.getCause();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Nested
    class UntrackedOutcomes {
        private final List<String> forwarded = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final CommandResults.RemoteOutcomes remote;

        UntrackedOutcomes() {
            remote = results.forwardUntracked(new CommandResults.UntrackedOutcomes() {
                @Override
                public void processed(CommandMessage command, int version, List<Object> events) {
                    forwarded.add("processed " + command.requestId() + " v" + version + " " + events);
                }

                @Override
                public void failed(CommandMessage command, Throwable error) {
                    forwarded.add("failed " + command.requestId() + " " + error.getMessage());
                }

                @Override
                public void projected(String commandId, String projection) {
                    forwarded.add("projected " + commandId + " by " + projection);
                }
            });
        }

        @Test
        void aProjectionOfACommandNobodyHereWaitsForIsForwardedAndAReportFromElsewhereEndsAWaitHere() {
            ProjectionListener orders = results.projection("Orders", Set.of(ORDER));
            CommandMessage waiting = command("waits-here");
            CompletableFuture<CommandResult> outcome = track(waiting, WaitStage.PROJECTED);

            orders.projected("elsewhere-1");
            results.processed(waiting, 1, List.of("Placed"));
            assertThat(outcome).isNotDone();
            remote.projected(waiting.messageId(), "Orders");

            assertThat(forwarded).containsExactly("projected elsewhere-1 by Orders");
            assertThat(outcome).isCompletedWithValueMatching(result -> result.stage() == WaitStage.PROJECTED);
        }

        @Test
        void outcomesOfCommandsNobodyHereWaitsForAreForwardedAndTrackedOnesAreNot() {
            CompletableFuture<CommandResult> local = track(command("local"), WaitStage.PROCESSED);

            results.processed(command("remote-1"), 3, List.of("Placed"));
            results.failed(command("remote-2"), new IllegalStateException("refused"));

            assertThat(forwarded).containsExactly("processed remote-1 v3 [Placed]", "failed remote-2 refused");
            assertThat(local).isNotDone();
        }

        @Test
        void theConnectedBusAnswersASenderHereWithWhatAnotherInstanceReported() {
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROCESSED);

            remote.processed(command, 2, List.of("Placed"));

            assertThat(outcome).isCompletedWithValueMatching(result -> result.version() == 2);
            assertThat(forwarded).as("tracked here: not forwarded").isEmpty();
        }

        @Test
        void onlyOneBusConnectsTheCapabilityToAnswerIsGivenOnce() {
            assertThatIllegalStateException()
                    .isThrownBy(() -> results.forwardUntracked(CommandResults.UntrackedOutcomes.NONE))
                    .withMessageContaining("already serves");
        }

        @Test
        void aStopIsNotForwarded() {
            results.failed(command("remote"), new ReceiverStoppedException("stopped"));
            results.stopped(command("remote"), Reason.STOPPED, null);

            assertThat(forwarded)
                    .as("a stopped command is redelivered, not answered")
                    .isEmpty();
        }
    }

    @Nested
    class Timeouts {

        @Test
        void aWaitNobodyAnswersEndsAtItsTimeoutAsUnknownAndIsForgotten() {
            CompletableFuture<CommandResult> outcome = track(command("r1"), WaitStage.PROCESSED);

            time.advanceTimeBy(TIMEOUT.minusMillis(1));
            assertThat(outcome).isNotDone();
            time.advanceTimeBy(Duration.ofMillis(1));

            StageNotReachedException ended = notReached(outcome);
            assertThat(ended.reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(ended.reached()).as("still in the bus").isNull();
            assertThat(ended.storage()).isEqualTo(Storage.UNKNOWN);
            assertThat(ended).hasMessageContaining("same request id");
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aProjectedWaitWhoseEventsAreStoredTimesOutSayingStored() {
            CommandMessage command = command("r1");
            results.expectProjections(ORDER, Set.of("Orders"));
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROJECTED);
            results.processed(command, 4, List.of("Placed"));

            time.advanceTimeBy(TIMEOUT);

            StageNotReachedException ended = notReached(outcome);
            assertThat(ended.reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(ended.reached()).isEqualTo(WaitStage.PROCESSED);
            assertThat(ended.storage()).isEqualTo(Storage.STORED);
            assertThat(ended.stored().version()).isEqualTo(4);
        }

        @Test
        void aSentWaitIsAnsweredWhenTheLaneTakesTheCommandAndForgottenAtTheTimeoutWithoutASecondAnswer() {
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.SENT);
            assertThat(outcome).as("held by the bus only").isNotDone();
            results.handling(command);
            assertThat(outcome).isCompletedWithValueMatching(result -> result.stage() == WaitStage.SENT);
            assertThat(results.inFlight())
                    .as("kept while in flight, for idempotency")
                    .isOne();

            time.advanceTimeBy(TIMEOUT);

            assertThat(results.inFlight()).isZero();
        }

        @Test
        void anAnsweredWaitIsNotTimedOutLater() {
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROCESSED);
            results.processed(command, 1, List.of("Placed"));

            time.advanceTimeBy(TIMEOUT.multipliedBy(2));

            assertThat(outcome).isCompletedWithValueMatching(result -> result.version() == 1);
            assertThat(results.inFlight()).isZero();
        }
    }

    @Nested
    class Stops {

        @Test
        void aStopBeforeTheAppendSaysNotStoredAndTheLaneMayNotAppendAnyMore() {
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROCESSED);
            CommandProgress progress = results.handling(command);

            results.stopped(command, Reason.FORCED, null);

            StageNotReachedException ended = notReached(outcome);
            assertThat(ended.reason()).isEqualTo(Reason.FORCED);
            assertThat(ended.storage()).isEqualTo(Storage.NOT_STORED);
            assertThat(progress.beginAppend())
                    .as("the sender was told nothing is stored")
                    .isFalse();
        }

        @Test
        void aStopDuringTheAppendSaysUnknown() {
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROCESSED);
            assertThat(results.handling(command).beginAppend()).isTrue();

            results.stopped(command, Reason.FORCED, null);

            assertThat(notReached(outcome).storage()).isEqualTo(Storage.UNKNOWN);
        }

        @Test
        void aFailureAfterAnAppendTheStoreDidNotConfirmSaysUnknownAndOtherFailuresPassUnchanged() {
            CommandMessage unconfirmed = command("r1");
            CompletableFuture<CommandResult> unconfirmedOutcome = track(unconfirmed, WaitStage.PROCESSED);
            CommandProgress progress = results.handling(unconfirmed);
            progress.beginAppend();
            progress.appendFailed(false);
            CommandMessage refused = command("r2");
            CompletableFuture<CommandResult> refusedOutcome = track(refused, WaitStage.PROCESSED);
            CommandProgress conflict = results.handling(refused);
            conflict.beginAppend();
            conflict.appendFailed(true);

            IllegalStateException lost = new IllegalStateException("connection lost");
            results.failed(unconfirmed, lost);
            results.failed(refused, lost);

            StageNotReachedException ended = notReached(unconfirmedOutcome);
            assertThat(ended.reason()).isEqualTo(Reason.APPEND_UNCONFIRMED);
            assertThat(ended.storage()).isEqualTo(Storage.UNKNOWN);
            assertThat(ended).hasCause(lost);
            assertThat(refusedOutcome)
                    .failsWithin(Duration.ZERO)
                    .withThrowableThat()
                    .havingCause()
                    .isSameAs(lost);
        }

        @Test
        void aStopAfterTheAppendAnswersAProcessedWaitWithTheStoredResult() {
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROCESSED);
            CommandProgress progress = results.handling(command);
            progress.beginAppend();
            progress.stored(7, List.of("Placed"));

            results.stopped(command, Reason.FORCED, null);

            assertThat(outcome)
                    .isCompletedWithValueMatching(
                            result -> result.version() == 7 && result.stage() == WaitStage.PROCESSED);
        }

        @Test
        void aStopAfterTheAppendTellsAProjectedWaitThatItIsStored() {
            CommandMessage command = command("r1");
            results.expectProjections(ORDER, Set.of("Orders"));
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROJECTED);
            CommandProgress progress = results.handling(command);
            progress.beginAppend();
            progress.stored(7, List.of("Placed"));

            results.stopped(command, Reason.STOPPED, null);

            StageNotReachedException ended = notReached(outcome);
            assertThat(ended.reason()).isEqualTo(Reason.STOPPED);
            assertThat(ended.storage()).isEqualTo(Storage.STORED);
            assertThat(ended.stored().version()).isEqualTo(7);
        }

        @Test
        void aStoppedProjectionEndsTheWaitsOnItNowOrWhenTheirEventsAreStored() {
            results.expectProjections(ORDER, Set.of("Orders", "Invoices"));
            CommandMessage stored = command("r1");
            CommandMessage later = command("r2");
            CompletableFuture<CommandResult> storedOutcome = track(stored, WaitStage.PROJECTED);
            CompletableFuture<CommandResult> laterOutcome = track(later, WaitStage.PROJECTED);
            results.processed(stored, 1, List.of("Placed"));
            results.projected(stored.messageId(), "Invoices");

            results.projectionStopped("Orders", Reason.FORCED);

            assertThat(notReached(storedOutcome).storage()).isEqualTo(Storage.STORED);
            assertThat(laterOutcome).isNotDone();
            results.processed(later, 2, List.of("Paid"));
            assertThat(notReached(laterOutcome).reason()).isEqualTo(Reason.FORCED);
            assertThat(results.inFlight()).isZero();
        }
    }

    @Nested
    class Projections {

        @Test
        void aProjectionReportsThroughItsOwnListenerAndItsSenderIsAnsweredOnceEveryProjectionHandledTheEvents() {
            ProjectionListener orders = results.projection("Orders", Set.of(ORDER));
            ProjectionListener invoices = results.projection("Invoices", Set.of(ORDER));
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROJECTED);
            results.processed(command, 1, List.of("Placed"));

            orders.projected(command.messageId());
            assertThat(outcome).as("Invoices has not handled it").isNotDone();
            invoices.projected(command.messageId());

            assertThat(outcome)
                    .isCompletedWithValueMatching(
                            result -> result.stage() == WaitStage.PROJECTED && result.version() == 1);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aProjectionIsDeclaredOnceASecondDeclarationIsRefusedNamingIt() {
            results.projection("Orders", Set.of(ORDER));

            assertThatIllegalArgumentException()
                    .isThrownBy(() -> results.projection("Orders", Set.of(NamedAggregate.of("shop", "invoice"))))
                    .withMessageContaining("'Orders'")
                    .withMessageContaining("declared already");
        }

        @Test
        void aProjectionThatGivesUpTellsItsSenderThatTheEventsAreStoredButNotProjected() {
            ProjectionListener orders = results.projection("Orders", Set.of(ORDER));
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROJECTED);
            results.processed(command, 3, List.of("Placed"));
            IllegalStateException parked = new IllegalStateException("read model down");

            orders.failed(command.messageId(), parked);

            StageNotReachedException ended = notReached(outcome);
            assertThat(ended.reason()).isEqualTo(Reason.PROJECTION_FAILED);
            assertThat(ended.storage()).isEqualTo(Storage.STORED);
            assertThat(ended).hasCause(parked);
        }

        @Test
        void aStoppedProjectionEndsTheWaitsOnIt() {
            ProjectionListener orders = results.projection("Orders", Set.of(ORDER));
            CommandMessage command = command("r1");
            CompletableFuture<CommandResult> outcome = track(command, WaitStage.PROJECTED);
            results.processed(command, 1, List.of("Placed"));

            orders.stopped(Reason.STOPPED);

            assertThat(notReached(outcome).reason()).isEqualTo(Reason.STOPPED);
        }

        @Test
        void noPublicMethodAnswersAWaitOnlyViewsAndTheDeclarationOfAProjection() {
            Set<String> publicMethods = new TreeSet<>();
            for (Method method : CommandResults.class.getDeclaredMethods()) {
                if (Modifier.isPublic(method.getModifiers())) {
                    publicMethods.add(method.getName());
                }
            }

            assertThat(publicMethods)
                    .containsExactly("defaultTimeout", "forwardUntracked", "inFlight", "projection", "toString");
        }
    }

    /** A send of the same message while it is in flight joins it with a wait of its own. */
    @Nested
    class Joins {
        private final CommandMessage command = command("r1");

        private CompletableFuture<CommandResult> join(WaitStage stage, Duration timeout) {
            TrackedCommand.Wait wait = results.track(command, stage, timeout);
            assertThat(wait.role).isEqualTo(TrackedCommand.Wait.Role.JOINED);
            return wait.outcome().toFuture();
        }

        @Test
        void onlyTheFirstSendOfAMessageSendsAndAnotherMessageOfItsRequestIdWaitsBehindIt() {
            assertThat(results.track(command, WaitStage.PROCESSED, TIMEOUT).role)
                    .isEqualTo(TrackedCommand.Wait.Role.SENDS);
            assertThat(results.track(command, WaitStage.PROCESSED, TIMEOUT).role)
                    .isEqualTo(TrackedCommand.Wait.Role.JOINED);
            assertThat(results.track(command("r1"), WaitStage.PROCESSED, TIMEOUT).role)
                    .isEqualTo(TrackedCommand.Wait.Role.BEHIND);
            assertThat(results.inFlight()).isOne();
        }

        @Test
        void aSenderWhoJoinsIsAnsweredAtItsOwnStageFromHowFarTheCommandGot() {
            results.expectProjections(ORDER, Set.of("Orders"));
            CompletableFuture<CommandResult> projected = track(command, WaitStage.PROJECTED);
            results.handling(command);

            CompletableFuture<CommandResult> sent = join(WaitStage.SENT, TIMEOUT);
            assertThat(sent)
                    .as("its lane took it")
                    .isCompletedWithValueMatching(result -> result.stage() == WaitStage.SENT);

            results.processed(command, 1, List.of("Placed"));
            assertThat(projected).isNotDone();
            CompletableFuture<CommandResult> processed = join(WaitStage.PROCESSED, TIMEOUT);
            assertThat(processed)
                    .as("processed already")
                    .isCompletedWithValueMatching(
                            result -> result.stage() == WaitStage.PROCESSED && result.version() == 1);
            CompletableFuture<CommandResult> projectedToo = join(WaitStage.PROJECTED, TIMEOUT);
            assertThat(projectedToo).isNotDone();

            results.projected(command.messageId(), "Orders");

            assertThat(projected).isCompletedWithValueMatching(result -> result.stage() == WaitStage.PROJECTED);
            assertThat(projectedToo).isCompletedWithValueMatching(result -> result.stage() == WaitStage.PROJECTED);
            assertThat(sent.join().commandId()).isEqualTo(command.messageId());
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aProjectedSenderWhoJoinsAfterTheProjectionsReportedIsAnsweredAtOnce() {
            results.expectProjections(ORDER, Set.of("Orders"));
            CompletableFuture<CommandResult> processed = track(command, WaitStage.PROCESSED);
            CommandProgress progress = results.handling(command);
            assertThat(progress.beginAppend()).isTrue();
            progress.stored(1, List.of("Placed"));
            results.projected(command.messageId(), "Orders"); // before the lane reports it processed

            CompletableFuture<CommandResult> projected = join(WaitStage.PROJECTED, TIMEOUT);

            assertThat(projected).isCompletedWithValueMatching(result -> result.stage() == WaitStage.PROJECTED);
            assertThat(processed).isNotDone();
            results.processed(command, 1, List.of("Placed"));
            assertThat(processed).isCompletedWithValueMatching(result -> result.stage() == WaitStage.PROCESSED);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aJoinedSenderTimesOutAtItsOwnDeadlineAndTheFirstWaitsOn() {
            CompletableFuture<CommandResult> first = results.track(command, WaitStage.PROCESSED, Duration.ofSeconds(10))
                    .outcome()
                    .toFuture();
            CompletableFuture<CommandResult> joined = join(WaitStage.PROCESSED, Duration.ofSeconds(4));

            time.advanceTimeBy(Duration.ofSeconds(4));
            assertThat(notReached(joined).reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(first).isNotDone();
            assertThat(results.inFlight()).isOne();

            time.advanceTimeBy(Duration.ofSeconds(6));
            assertThat(notReached(first).reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aJoinedSenderWaitsPastTheFirstSendersTimeoutUntilItsOwn() {
            CompletableFuture<CommandResult> first = results.track(command, WaitStage.PROCESSED, Duration.ofSeconds(4))
                    .outcome()
                    .toFuture();
            CompletableFuture<CommandResult> joined = join(WaitStage.PROCESSED, Duration.ofSeconds(10));

            time.advanceTimeBy(Duration.ofSeconds(4));
            assertThat(notReached(first).reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(results.inFlight()).as("still waited for").isOne();
            time.advanceTimeBy(Duration.ofMillis(5_999));
            assertThat(joined).isNotDone();
            time.advanceTimeBy(Duration.ofMillis(1));

            assertThat(notReached(joined).reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aJoinedSenderIsAnsweredWhenTheCommandIsProcessedAfterTheFirstSenderTimedOut() {
            CompletableFuture<CommandResult> first = results.track(command, WaitStage.PROCESSED, Duration.ofSeconds(4))
                    .outcome()
                    .toFuture();
            CompletableFuture<CommandResult> joined = join(WaitStage.PROCESSED, Duration.ofSeconds(10));
            time.advanceTimeBy(Duration.ofSeconds(4));
            assertThat(notReached(first).reason()).isEqualTo(Reason.TIMED_OUT);

            results.processed(command, 2, List.of("Placed"));

            assertThat(joined).isCompletedWithValueMatching(result -> result.version() == 2);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aStopTellsEverySenderAndTheLaneMayNotAppendAnyMore() {
            CompletableFuture<CommandResult> first = track(command, WaitStage.PROCESSED);
            CompletableFuture<CommandResult> joined = join(WaitStage.PROJECTED, TIMEOUT);
            CommandProgress progress = results.handling(command);

            results.stopped(command, Reason.FORCED, null);

            for (CompletableFuture<CommandResult> outcome : List.of(first, joined)) {
                assertThat(notReached(outcome).storage()).isEqualTo(Storage.NOT_STORED);
            }
            assertThat(notReached(joined).requested()).isEqualTo(WaitStage.PROJECTED);
            assertThat(progress.beginAppend()).isFalse();
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void theCommandsFailureReachesEverySenderUnchanged() {
            CompletableFuture<CommandResult> first = track(command, WaitStage.PROCESSED);
            CompletableFuture<CommandResult> joined = join(WaitStage.SENT, TIMEOUT);
            IllegalStateException refused = new IllegalStateException("order closed");

            results.failed(command, refused);

            for (CompletableFuture<CommandResult> outcome : List.of(first, joined)) {
                assertThat(outcome)
                        .failsWithin(Duration.ZERO)
                        .withThrowableThat()
                        .havingCause()
                        .isSameAs(refused);
            }
            assertThat(results.inFlight()).isZero();
        }
    }

    @Nested
    class Gateway {
        private final InMemoryCommandBus bus = new InMemoryCommandBus(8, results);
        private final DefaultCommandGateway gateway = new DefaultCommandGateway(bus, EventStores.inMemory(), results);

        @Test
        void resultsAnInMemoryBusReportsToTakeNoDistributedBus() {
            assertThatIllegalStateException()
                    .isThrownBy(() -> results.forwardUntracked(CommandResults.UntrackedOutcomes.NONE))
                    .withMessageContaining("already serves InMemoryCommandBus");
        }

        @Test
        void aSendWaitsAtMostItsOwnTimeout() {
            bus.receive(ORDER); // declared, but nothing takes the commands
            CompletableFuture<CommandResult> outcome = gateway.send(
                            command("r1"), WaitStage.PROCESSED, Duration.ofSeconds(2))
                    .toFuture();

            time.advanceTimeBy(Duration.ofSeconds(2));

            assertThat(notReached(outcome).reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aSendWhoseBusNeverAcknowledgesStillEndsAtItsTimeout() {
            // a distributed bus whose broker never acknowledges the record (a producer stuck in its retries)
            CommandBus silent = new CommandBus() {
                @Override
                public Mono<Void> send(CommandMessage command) {
                    return Mono.never();
                }

                @Override
                public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate) {
                    return Flux.never();
                }
            };
            DefaultCommandGateway overSilentBus = new DefaultCommandGateway(silent, EventStores.inMemory(), results);
            CompletableFuture<CommandResult> outcome = overSilentBus
                    .send(command("r1"), WaitStage.PROCESSED, Duration.ofSeconds(2))
                    .toFuture();

            time.advanceTimeBy(Duration.ofSeconds(2));

            StageNotReachedException ended = notReached(outcome);
            assertThat(ended.reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(ended.storage())
                    .as("the bus may still deliver it")
                    .isEqualTo(StageNotReachedException.Storage.UNKNOWN);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aSendDoesNothingUntilSubscribedAndAFailedSendEndsItsWait() {
            List<CommandMessage> sent = new ArrayList<>();
            CommandBus refusing = new CommandBus() {
                @Override
                public Mono<Void> send(CommandMessage command) {
                    sent.add(command);
                    return Mono.error(new IllegalStateException("broker down"));
                }

                @Override
                public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate) {
                    return Flux.never();
                }
            };
            DefaultCommandGateway overRefusingBus =
                    new DefaultCommandGateway(refusing, EventStores.inMemory(), results);

            Mono<CommandResult> send = overRefusingBus.send(command("r1"), WaitStage.PROCESSED, Duration.ofSeconds(2));
            assertThat(sent).isEmpty();
            assertThat(results.inFlight()).isZero();

            StepVerifier.create(send).verifyErrorMessage("broker down");
            assertThat(sent).hasSize(1);
            assertThat(results.inFlight()).isZero();
        }

        @Test
        void aSendWithoutATimeoutWaitsTheDefault() {
            bus.receive(ORDER);
            CompletableFuture<CommandResult> outcome =
                    gateway.send(command("r1"), WaitStage.PROCESSED).toFuture();

            time.advanceTimeBy(TIMEOUT.minusSeconds(1));
            assertThat(outcome).isNotDone();
            time.advanceTimeBy(Duration.ofSeconds(1));

            assertThat(notReached(outcome).reason()).isEqualTo(Reason.TIMED_OUT);
        }

        @Test
        void aResendOfARequestInFlightWaitsForTheFirstThenForItsOwnTimeout() {
            bus.receive(ORDER);
            CompletableFuture<CommandResult> first = gateway.send(
                            command("r1"), WaitStage.PROCESSED, Duration.ofSeconds(10))
                    .toFuture();
            CompletableFuture<CommandResult> second = gateway.send(
                            command("r1"), WaitStage.PROCESSED, Duration.ofSeconds(4))
                    .toFuture();

            time.advanceTimeBy(Duration.ofSeconds(4));

            assertThat(first).isNotDone();
            assertThat(notReached(second).reason()).isEqualTo(Reason.TIMED_OUT);
            assertThat(results.inFlight()).as("the resend sent nothing").isOne();
        }
    }
}
