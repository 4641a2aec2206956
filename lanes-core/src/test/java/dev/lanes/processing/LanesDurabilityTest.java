package dev.lanes.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.test.logging.LogCapture;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A service whose events outlive the process but whose dead letters do not would, after a restart, have lost what it
 * parked and release the aggregates it held: {@code Lanes.builder()} says so when it is built, naming both.
 */
class LanesDurabilityTest {
    private static final NamedAggregate TILL = NamedAggregate.of("shop", "till");

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @Test
    void aDurableEventStoreWithTheDefaultInMemoryDeadLetterQueueIsWarnedAboutNamingBoth() {
        build(new DurableStore(), null);

        assertThat(logs.lines(Level.WARN))
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .startsWith("Lanes keeps its events in DurableStore but parks failed commands and events in"
                                + " InMemoryDeadLetterQueue")
                        .contains("lost with the process"));
    }

    @Test
    void storesThatAreBothInMemoryOrBothDurableAreNot() {
        build(EventStores.inMemory(), null);
        build(new DurableStore(), new DurableQueue());

        assertThat(logs.lines(Level.WARN)).isEmpty();
    }

    private static void build(EventStore store, @Nullable DeadLetterQueue queue) {
        Lanes.Builder builder = Lanes.builder()
                .aggregate(AggregateDefinition.<Integer>builder(TILL, id -> 0)
                        .handle(String.class, (state, command) -> List.of(command))
                        .apply(String.class, (state, event) -> state + 1)
                        .build())
                .eventStore(store);
        if (queue != null) {
            builder.deadLetterQueue(queue);
        }
        builder.build().stop();
    }

    /** An event store that says its streams outlive the process, as a database's do; it stores nothing. */
    private static final class DurableStore implements EventStore {
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
            return Mono.just(false);
        }

        @Override
        public String toString() {
            return "DurableStore";
        }
    }

    /** An in-memory queue that says its letters outlive the process (the interface's default). */
    private static final class DurableQueue extends ForwardingDeadLetterQueue {
        DurableQueue() {
            super(DeadLetterQueues.inMemory());
        }
    }
}
