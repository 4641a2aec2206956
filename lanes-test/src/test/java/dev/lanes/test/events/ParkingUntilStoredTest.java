package dev.lanes.test.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetainingParkingLot;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

/**
 * A bus-fed processor whose dead-letter queue cannot store a parking (its database is down) keeps the stream in the
 * lane and tries again until the queue stored it: the stream is never moved to the in-memory parking lot (where it
 * would be acknowledged and lost at a restart), the aggregate's later streams wait behind it, other aggregates flow,
 * and the lane's handler timeout, shorter than the outage, does not cut the wait.
 */
class ParkingUntilStoredTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final AggregateId POISONED = Bank.account("acc-poisoned");
    private static final AggregateId HEALTHY = Bank.account("acc-healthy");

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private final AtomicBoolean poisoned = new AtomicBoolean(true);
    private final List<String> handled = new CopyOnWriteArrayList<>();
    private final DownQueue queue = new DownQueue(DeadLetterQueues.inMemory());
    private final RetainingParkingLot parkingLot = ParkingLots.inMemory();

    @Test
    void aParkingTheQueueCannotStoreWaitsInTheLaneUntilStoredPastTheHandlerTimeoutAndNeverReachesTheParkingLot() {
        EventProcessor statements = EventProcessor.builder("Statements", ProcessorKind.HANDLER)
                .on(
                        Bank.ACCOUNT,
                        Deposited.class,
                        (deposited, context) -> Mono.fromRunnable(() -> {
                            if (poisoned.get() && context.aggregateId().equals(POISONED) && context.version() == 2) {
                                throw new IllegalStateException("statement printer jammed");
                            }
                            handled.add(context.aggregateId().id() + " v" + context.version());
                        }))
                .build();
        try (Lanes lanes = Lanes.builder()
                .aggregate(Bank.definition())
                .processor(statements)
                .eventSettings(LaneSettings.DEFAULT
                        .withRetryPolicy(RetryPolicy.NONE)
                        .withHandlerTimeout(Duration.ofMillis(100), Duration.ofMillis(200)))
                .deadLetterQueue(queue)
                .eventParkingLot(parkingLot)
                .build()
                .start()) {
            send(lanes, POISONED, new OpenAccount("ada"));
            send(lanes, POISONED, new Deposit(100)); // v2: fails, its parking fails while the queue is down
            send(lanes, POISONED, new Deposit(50)); // v3: waits in the lane behind v2
            send(lanes, HEALTHY, new OpenAccount("bob"));
            send(lanes, HEALTHY, new Deposit(10));

            // several failed parkings, each retry a second apart: far past the 200 ms handler timeout
            await().atMost(TIMEOUT).until(() -> queue.refused.get() >= 3);
            assertThat(handled).contains("acc-healthy v2").doesNotContain("acc-poisoned v3");
            assertThat(parkingLot.entries())
                    .as("nothing moved to the in-memory parking lot")
                    .isEmpty();

            queue.down.set(false);
            await().atMost(TIMEOUT)
                    .until(() ->
                            queue.list("Statements", POISONED).block(TIMEOUT).size() == 2);
            assertThat(queue.list("Statements", POISONED).block(TIMEOUT))
                    .extracting(letter -> letter.stream().version())
                    .containsExactly(2, 3);
            assertThat(handled).doesNotContain("acc-poisoned v3");

            poisoned.set(false);
            assertThat(lanes.deadLetters()
                            .retry("Statements", POISONED)
                            .block(TIMEOUT)
                            .delivered())
                    .isEqualTo(2);
            assertThat(handled).containsSubsequence("acc-poisoned v2", "acc-poisoned v3");
            assertThat(parkingLot.entries()).isEmpty();
        }
        assertThat(logs.lines())
                .as("the handler timeout neither warned nor fired")
                .noneSatisfy(
                        line -> assertThat(line.message()).containsAnyOf("within its timeout", "has run for more"));
    }

    private static void send(Lanes lanes, AggregateId id, Object command) {
        lanes.gateway().send(id, command, WaitStage.PROCESSED).block(TIMEOUT);
    }

    /** The in-memory queue, whose parkings fail while {@link #down} is set; counts the refused parkings. */
    private static final class DownQueue extends ForwardingDeadLetterQueue {
        final AtomicBoolean down = new AtomicBoolean(true);
        final AtomicInteger refused = new AtomicInteger();

        DownQueue(DeadLetterQueue queue) {
            super(queue);
        }

        private <T> Mono<T> unlessDown(Mono<T> work) {
            return Mono.defer(() -> {
                if (down.get()) {
                    refused.incrementAndGet();
                    return Mono.error(new IllegalStateException("the dead-letter database is down"));
                }
                return work;
            });
        }

        @Override
        public Mono<DeadLetter> enqueue(String processor, DomainEventStream stream, String reason, int attempts) {
            return unlessDown(queue.enqueue(processor, stream, reason, attempts));
        }

        @Override
        public Mono<DeadLetter> enqueueIfPresent(String processor, DomainEventStream stream, String reason) {
            return unlessDown(queue.enqueueIfPresent(processor, stream, reason));
        }
    }
}
