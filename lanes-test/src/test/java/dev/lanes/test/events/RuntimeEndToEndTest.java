package dev.lanes.test.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.StageNotReachedException.Storage;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.runtime.ComponentReport;
import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The runtime around the whole bank: a graceful stop under load loses nothing, a deadline cuts and says what. */
class RuntimeEndToEndTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @Test
    void gracefulStopWithAHundredThousandCommandsInFlightLeavesNothingHalfDone() {
        BankApp bank = new BankApp(Duration.ofSeconds(60), Duration.ofMillis(20), List.of()).start();
        int accounts = 1_000;
        Flux.range(0, accounts)
                .flatMap(i -> bank.gateway.send(Bank.account("e" + i), new OpenAccount("o"), WaitStage.PROCESSED))
                .blockLast(TIMEOUT);

        AtomicLong processed = new AtomicLong();
        AtomicLong storedNotProjected = new AtomicLong();
        AtomicLong unknown = new AtomicLong();
        AtomicLong notStored = new AtomicLong();
        int commands = 100_000;
        Mono<Void> load = Flux.range(0, commands)
                .flatMap(
                        i -> bank.gateway
                                .send(Bank.account("e" + (i % accounts)), new Deposit(1), WaitStage.PROJECTED)
                                .doOnNext(result -> processed.incrementAndGet())
                                .then()
                                .onErrorResume(error -> {
                                    // a wait cut short (the stop, or a sender's timeout on a loaded machine) says
                                    // whether its command was stored; only those that say NOT_STORED are not
                                    Storage storage = error instanceof StageNotReachedException notReached
                                            ? notReached.storage()
                                            : Storage.NOT_STORED;
                                    (switch (storage) {
                                                case STORED -> storedNotProjected;
                                                case UNKNOWN -> unknown;
                                                case NOT_STORED -> notStored;
                                            })
                                            .incrementAndGet();
                                    return Mono.empty();
                                }),
                        4_096)
                .then()
                .cache();
        load.subscribe();
        org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> processed.get() > 1_000);

        ShutdownReport report = bank.runtime.shutdown().block(TIMEOUT);
        load.block(TIMEOUT);

        assertThat(report.graceful()).as(report.toString()).isTrue();
        assertThat(report.cut()).isZero();
        assertThat(processed.get() + storedNotProjected.get() + unknown.get() + notStored.get())
                .isEqualTo(commands);
        long stored = 0;
        for (int i = 0; i < accounts; i++) {
            String id = "e" + i;
            long deposits = bank.store
                    .load(Bank.account(id), 1)
                    .flatMapIterable(DomainEventStream::payloads)
                    .filter(Deposited.class::isInstance)
                    .count()
                    .block(TIMEOUT);
            assertThat(bank.balances.rows().get(id).balance())
                    .as("projected = stored for %s", id)
                    .isEqualTo(deposits);
            stored += deposits;
        }
        assertThat(stored)
                .as(
                        "every command answered as stored is stored and projected; none answered NOT_STORED is"
                                + " (processed %d, stored but not projected when answered %d, unknown %d, not stored %d)",
                        processed.get(), storedNotProjected.get(), unknown.get(), notStored.get())
                .isBetween(
                        processed.get() + storedNotProjected.get(),
                        processed.get() + storedNotProjected.get() + unknown.get());
    }

    @Test
    void aDeadlineThatWinsForcesTheComponentsAndTheReportListsWhatWasCut() {
        EventProcessor slow = EventProcessor.builder("SlowMailer", ProcessorKind.HANDLER)
                .on(
                        Bank.ACCOUNT,
                        AccountEvent.class,
                        (event, context) -> Mono.delay(Duration.ofMillis(20)).then())
                .build();
        BankApp bank = new BankApp(Duration.ofMillis(100), Duration.ZERO, List.of(slow)).start();
        Flux.range(0, 50)
                .flatMap(i -> bank.gateway.send(Bank.account("s" + i), new OpenAccount("o"), WaitStage.PROCESSED))
                .blockLast(TIMEOUT);
        AtomicLong settled = new AtomicLong();
        int commands = 2_000;
        Mono<Void> load = Flux.range(0, commands)
                .flatMap(
                        i -> bank.gateway
                                .send(Bank.account("s" + (i % 50)), new Deposit(1), WaitStage.PROCESSED)
                                .then()
                                .onErrorResume(error -> Mono.empty())
                                // before the end reaches flatMap (doFinally runs after, racing with load.block below)
                                .doOnTerminate(settled::incrementAndGet),
                        256)
                .then()
                .cache();
        load.subscribe();
        org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> settled.get() > 100);

        ShutdownReport report = bank.runtime.shutdown().block(TIMEOUT);
        load.block(TIMEOUT);

        assertThat(report.forced()).as(report.toString()).isTrue();
        assertThat(report.failure()).isInstanceOf(java.util.concurrent.TimeoutException.class);
        assertThat(report.components()).extracting(ComponentReport::outcome).contains(ComponentReport.Outcome.FORCED);
        assertThat(report.toString()).contains("FORCED").contains("EventDispatcher");
        assertThat(report.cut())
                .as("the slow processor still held admitted streams")
                .isPositive();
        assertThat(settled.get()).as("every command's sender got an answer").isEqualTo(commands);
        assertThat(report.duration()).isLessThan(Duration.ofSeconds(5));
    }
}
