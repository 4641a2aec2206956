package dev.lanes.test.events;

import static dev.lanes.runtime.LanesRuntime.State.STOPPED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.command.CommandResult;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.flow.IntakeGate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Every wait a sender registered ends when the runtime stops, forced or not, and says how far its command got. */
class StopAnswersTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aSenderWaitingForProjectedIsAnsweredWhenAForcedStopCutsAProjectionThatNeverEnds() {
        AtomicBoolean projecting = new AtomicBoolean();
        EventProcessor neverEnding = EventProcessor.builder("NeverEnding", ProcessorKind.PROJECTION)
                .on(
                        Bank.ACCOUNT,
                        Deposited.class,
                        (event, context) -> Mono.<Void>never().doOnSubscribe(subscription -> projecting.set(true)))
                .build();
        BankApp bank = new BankApp(
                        EventStores.inMemory(),
                        Duration.ofMillis(300),
                        Duration.ZERO,
                        List.of(neverEnding),
                        lanes -> lanes)
                .start();
        bank.gateway
                .send(Bank.account("p"), new OpenAccount("pat"), WaitStage.PROJECTED)
                .block(TIMEOUT);
        Mono<CommandResult> deposit = bank.gateway
                .send(Bank.account("p"), new Deposit(5), WaitStage.PROJECTED)
                .cache();
        deposit.subscribe(result -> {}, error -> {});
        // the deposit is stored and published: only its projection is left when the stop begins
        await().atMost(TIMEOUT).untilTrue(projecting);

        ShutdownReport report = bank.runtime.shutdown().block(TIMEOUT);
        assertThat(report.forced()).as(report.toString()).isTrue();

        StepVerifier.create(deposit)
                .expectErrorSatisfies(error -> {
                    assertThat(error).isInstanceOf(StageNotReachedException.class);
                    StageNotReachedException notReached = (StageNotReachedException) error;
                    assertThat(notReached.reason()).isEqualTo(StageNotReachedException.Reason.FORCED);
                    assertThat(notReached.requested()).isEqualTo(WaitStage.PROJECTED);
                    assertThat(notReached.reached()).isEqualTo(WaitStage.PROCESSED);
                    assertThat(notReached.storage()).isEqualTo(StageNotReachedException.Storage.STORED);
                    assertThat(notReached.stored().version()).isEqualTo(2);
                })
                .verify(Duration.ofSeconds(5));
        assertThat(bank.results.inFlight()).isZero();
    }

    @Test
    void aGracefulStopAnswersTheCommandsStillWaitingInTheBusAtOnceAsStoppedAndProcessesTheOthers() {
        // the quiet period passes only when the test says so: the answers must come while it runs
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        BankApp bank = new BankApp(
                        EventStores.inMemory(),
                        8,
                        Duration.ofSeconds(30),
                        Duration.ofSeconds(2),
                        List.of(),
                        lanes -> lanes.timer(time))
                .start();
        // a consumer group that takes nothing: past 8 streams the bus pauses new commands of its type
        bank.eventBus
                .receive("Stuck", Bank.ACCOUNT)
                .subscribe(new BaseSubscriber<MessageExchange<DomainEventStream>>() {
                    @Override
                    protected void hookOnSubscribe(Subscription subscription) {}
                });
        IntakeGate gate = bank.eventBus.intakeGate(Bank.ACCOUNT);
        bank.gateway
                .send(Bank.account("w"), new OpenAccount("wes"), WaitStage.PROCESSED)
                .block(TIMEOUT);
        while (gate.isOpen()) {
            bank.gateway
                    .send(Bank.account("w"), new Deposit(1), WaitStage.PROCESSED)
                    .block(TIMEOUT);
        }
        Map<String, Object> answers = new ConcurrentHashMap<>();
        for (int i = 0; i < 50; i++) {
            String requestId = "deposit-" + i;
            bank.gateway
                    .send(CommandMessage.of(Bank.account("w"), new Deposit(1), requestId), WaitStage.PROCESSED)
                    .subscribe(result -> answers.put(requestId, result), error -> answers.put(requestId, error));
        }
        await().during(Duration.ofMillis(200))
                .atMost(TIMEOUT)
                .until(() -> answers.size() <= 1); // one may have been in hand-over when the gate closed

        Mono<ShutdownReport> shutdown = bank.runtime.shutdown().cache();
        shutdown.subscribe();

        await().atMost(TIMEOUT).until(() -> answers.size() == 50);
        assertThat(bank.runtime.state())
                .as("answered before the quiet period ended")
                .isNotEqualTo(STOPPED);
        time.advanceTimeBy(Duration.ofSeconds(2));
        ShutdownReport report = shutdown.block(TIMEOUT);
        assertThat(report.graceful()).as(report.toString()).isTrue();
        answers.forEach((requestId, answer) -> {
            boolean stored =
                    bank.store.hasRequestId(Bank.account("w"), requestId).block(TIMEOUT);
            if (answer instanceof StageNotReachedException stopped) {
                assertThat(stopped.reason()).isEqualTo(StageNotReachedException.Reason.STOPPED);
                assertThat(stopped.storage()).isEqualTo(StageNotReachedException.Storage.NOT_STORED);
                assertThat(stopped.reached()).as("it waited in the bus").isNull();
                assertThat(stored).as(requestId).isFalse();
            } else {
                assertThat(answer).as(requestId).isInstanceOf(CommandResult.class);
                assertThat(stored).as(requestId).isTrue();
            }
        });
        assertThat(bank.results.inFlight()).isZero();
    }
}
