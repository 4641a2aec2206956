package dev.lanes.test.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.command.CommandResult;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.InMemoryEventStore;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.test.bank.AccountCommand.Deposit;
import dev.lanes.test.bank.AccountCommand.OpenAccount;
import dev.lanes.test.bank.AccountEvent.Deposited;
import dev.lanes.test.bank.Bank;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Every wait a sender registered ends when the runtime stops, forced or not, and says how far its command got. */
class StopAnswersTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aSenderWaitingForProjectedIsAnsweredWhenAForcedStopCutsAProjectionThatNeverEnds() {
        EventProcessor neverEnding = EventProcessor.builder("NeverEnding", ProcessorKind.PROJECTION)
                .on(Bank.ACCOUNT, Deposited.class, (event, context) -> Mono.never())
                .build();
        BankApp bank = new BankApp(
                        new InMemoryEventStore(),
                        Duration.ofMillis(300),
                        Duration.ZERO,
                        List.of(neverEnding),
                        events -> events)
                .start();
        bank.gateway
                .send(Bank.account("p"), new OpenAccount("pat"), WaitStage.PROJECTED)
                .block(TIMEOUT);
        Mono<CommandResult> deposit = bank.gateway
                .send(Bank.account("p"), new Deposit(5), WaitStage.PROJECTED)
                .cache();
        deposit.subscribe(result -> {}, error -> {});

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
}
