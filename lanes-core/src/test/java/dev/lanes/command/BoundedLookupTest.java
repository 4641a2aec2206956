package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.command.StageNotReachedException.Storage;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The gateway asks the store for a request id only before a send whose sender waits for {@code PROJECTED}; the whole
 * send is then bounded by the sender's timeout, the lookup included: a store that does not answer the lookup (a locked
 * table, a server that never answers) ends the send at its deadline, and a lookup that answers late leaves the wait
 * only the rest of the timeout. Other sends go to the bus without asking the store.
 */
class BoundedLookupTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final CommandResults results = new CommandResults(TIMEOUT, time);
    private final Sinks.One<DomainEventStream> lookupAnswer = Sinks.one();
    private final AtomicInteger lookups = new AtomicInteger();
    private final TakingBus bus = new TakingBus();
    private final CommandGateway gateway = CommandGateways.create(bus, new SlowLookupStore(), results);

    @Test
    void aSendThatDoesNotWaitForProjectionsGoesToTheBusWithoutAskingTheStore() {
        for (WaitStage stage : List.of(WaitStage.SENT, WaitStage.PROCESSED)) {
            CommandMessage command = CommandMessage.of(AggregateId.of(ORDER, "o-" + stage), "Place", "r-" + stage);

            gateway.send(command, stage).subscribe(result -> {}, error -> {});

            assertThat(bus.sent)
                    .as("sent for %s while the lookup has not answered", stage)
                    .contains(command);
        }
        assertThat(lookups).hasValue(0);
    }

    @Test
    void aLookupTheStoreNeverAnswersEndsTheSendAtItsDeadlineWithItsStorageUnknown() {
        CommandMessage command = CommandMessage.of(AggregateId.of(ORDER, "o-1"), "Place", "r-1");
        CompletableFuture<CommandResult> sent =
                gateway.send(command, WaitStage.PROJECTED).toFuture();

        time.advanceTimeBy(TIMEOUT.minusMillis(1));
        assertThat(sent).isNotDone();
        time.advanceTimeBy(Duration.ofMillis(1));

        StageNotReachedException notReached = failure(sent);
        assertThat(notReached.reason()).isEqualTo(Reason.TIMED_OUT);
        assertThat(notReached.storage()).isEqualTo(Storage.UNKNOWN);
    }

    @Test
    void aLookupAnsweredLateLeavesTheWaitOnlyTheRestOfTheTimeout() {
        CommandMessage command = CommandMessage.of(AggregateId.of(ORDER, "o-2"), "Place", "r-2");
        CompletableFuture<CommandResult> sent =
                gateway.send(command, WaitStage.PROJECTED).toFuture();
        time.advanceTimeBy(Duration.ofSeconds(20));
        assertThat(bus.sent).as("nothing sent before the lookup answered").isEmpty();
        lookupAnswer.tryEmitEmpty(); // not stored: the command is sent, and nothing handles it in this test

        time.advanceTimeBy(Duration.ofSeconds(10).minusMillis(1));
        assertThat(sent).as("at 29.999 s").isNotDone();
        time.advanceTimeBy(Duration.ofMillis(1));

        assertThat(failure(sent).reason()).isEqualTo(Reason.TIMED_OUT);
    }

    private static StageNotReachedException failure(CompletableFuture<CommandResult> sent) {
        assertThat(sent).isCompletedExceptionally();
        try {
            sent.get();
            throw new AssertionError("completed: " + sent);
        } catch (ExecutionException failed) {
            assertThat(failed.getCause()).isInstanceOf(StageNotReachedException.class);
            return (StageNotReachedException) failed.getCause();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError(interrupted);
        }
    }

    /** Takes every command and hands none to a receiver: nothing answers a sent command in this test. */
    private static final class TakingBus implements CommandBus {
        final List<CommandMessage> sent = new CopyOnWriteArrayList<>();

        @Override
        public Mono<Void> send(CommandMessage command) {
            sent.add(command);
            return Mono.empty();
        }

        @Override
        public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate) {
            return Flux.never();
        }
    }

    /** Answers the request-id lookup only when the test says so; stores and loads nothing. */
    private final class SlowLookupStore implements EventStore {
        @Override
        public Mono<Void> append(DomainEventStream stream) {
            return Mono.empty();
        }

        @Override
        public Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion, int toVersion) {
            return Flux.empty();
        }

        @Override
        public Mono<Boolean> hasRequestId(AggregateId aggregateId, String requestId) {
            return findByRequestId(aggregateId, requestId).hasElement();
        }

        @Override
        public Mono<DomainEventStream> findByRequestId(AggregateId aggregateId, String requestId) {
            lookups.incrementAndGet();
            return lookupAnswer.asMono();
        }
    }
}
