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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The whole send is bounded by the sender's timeout, the gateway's request-id lookup included: a store that does not
 * answer the lookup (a locked table, a server that never answers) ends the send at its deadline, and a lookup that
 * answers late leaves the wait only the rest of the timeout.
 */
class BoundedLookupTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final CommandResults results = new CommandResults(TIMEOUT, time);
    private final Sinks.One<DomainEventStream> lookupAnswer = Sinks.one();
    private final CommandGateway gateway = CommandGateways.create(new TakingBus(), new SlowLookupStore(), results);

    @Test
    void aLookupTheStoreNeverAnswersEndsTheSendAtItsDeadlineWithItsStorageUnknown() {
        CommandMessage command = CommandMessage.of(AggregateId.of(ORDER, "o-1"), "Place", "r-1");
        CompletableFuture<CommandResult> sent =
                gateway.send(command, WaitStage.PROCESSED).toFuture();

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
                gateway.send(command, WaitStage.PROCESSED).toFuture();
        time.advanceTimeBy(Duration.ofSeconds(20));
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
        @Override
        public Mono<Void> send(CommandMessage command) {
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
            return lookupAnswer.asMono();
        }
    }
}
