package dev.lanes.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.deadline.Deadline;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.process.ProcessManager;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.test.logging.LogCapture;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A service whose events outlive the process but whose dead letters do not would, after a restart, have lost what it
 * parked and release the aggregates it held, and a process manager whose deadlines do not would wait for them forever:
 * {@code Lanes.builder()} says so when it is built, naming both.
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

    @Test
    void aProcessManagerWhoseDeadlinesAreInMemoryBesideADurableEventStoreIsWarnedAboutNamingIt() {
        DeadlineStore inMemory = DeadlineStores.inMemory();
        buildWith(reminders(inMemory), inMemory);
        assertThat(logs.lines(Level.WARN))
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .startsWith("Lanes keeps its events in DurableStore but the process manager reminders keeps its"
                                + " deadlines in InMemoryDeadlineStore")
                        .contains("lost with the process"));

        DeadlineStore durable = new DurableDeadlines();
        buildWith(reminders(durable), durable);
        assertThat(logs.lines(Level.WARN)).as("durable deadlines: nothing more").hasSize(1);
    }

    private static ProcessManager<String> reminders(DeadlineStore deadlines) {
        return ProcessManager.builder("reminders", NamedAggregate.of("shop", "reminder"), String.class, key -> key)
                .startOn(TILL, String.class, event -> event, (state, event, context) -> state)
                .onDeadline("remind", (state, due, context) -> state)
                .deadlines(deadlines, Clock.systemUTC())
                .build();
    }

    private static void buildWith(ProcessManager<?> manager, DeadlineStore deadlines) {
        Lanes.builder()
                .aggregate(till())
                .eventStore(new DurableStore())
                .deadLetterQueue(new DurableQueue())
                .processManager(manager)
                .deadlines(deadlines)
                .build()
                .stop();
    }

    private static AggregateDefinition<Integer> till() {
        return AggregateDefinition.<Integer>builder(TILL, id -> 0)
                .handle(String.class, (state, command) -> List.of(command))
                .apply(String.class, (state, event) -> state + 1)
                .build();
    }

    private static void build(EventStore store, @Nullable DeadLetterQueue queue) {
        Lanes.Builder builder = Lanes.builder().aggregate(till()).eventStore(store);
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

    /** An in-memory deadline store that says its deadlines outlive the process, as a database's do. */
    private static final class DurableDeadlines implements DeadlineStore {
        private final DeadlineStore delegate = DeadlineStores.inMemory();

        @Override
        public Mono<Void> schedule(Deadline deadline) {
            return delegate.schedule(deadline);
        }

        @Override
        public Mono<Integer> cancel(AggregateId target, String name) {
            return delegate.cancel(target, name);
        }

        @Override
        public Mono<Boolean> remove(String id) {
            return delegate.remove(id);
        }

        @Override
        public Mono<List<Deadline>> claimDue(Instant now, int max, Duration lease) {
            return delegate.claimDue(now, max, lease);
        }

        @Override
        public Mono<Void> release(String id, Instant retryAt) {
            return delegate.release(id, retryAt);
        }

        @Override
        public Mono<List<Deadline>> pending() {
            return delegate.pending();
        }

        @Override
        public boolean durable() {
            return true;
        }
    }

    /** An in-memory queue that says its letters outlive the process (the interface's default). */
    private static final class DurableQueue extends ForwardingDeadLetterQueue {
        DurableQueue() {
            super(DeadLetterQueues.inMemory());
        }
    }
}
