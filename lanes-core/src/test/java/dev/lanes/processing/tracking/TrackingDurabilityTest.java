package dev.lanes.processing.tracking;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.SegmentCheckpoint;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.test.logging.LogLine;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;

/**
 * A tracking processor whose checkpoints outlive the process but whose dead letters do not would, after a restart, read
 * on past streams it parked and lost: it says so at start, naming both stores, instead of leaving it to be found.
 */
class TrackingDurabilityTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @Test
    void aDurableCheckpointStoreWithAnInMemoryDeadLetterQueueIsWarnedAboutAtStart() {
        run(new DurableCheckpoints(CheckpointStores.inMemory()), DeadLetterQueues.inMemory());

        assertThat(warnings())
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .startsWith("Tracking-Orders keeps its checkpoint in DurableCheckpoints but parks in")
                        .contains("lost with the process"));
    }

    @Test
    void storesThatAreBothInMemoryOrBothDurableAreNot() {
        run(CheckpointStores.inMemory(), DeadLetterQueues.inMemory());
        run(new DurableCheckpoints(CheckpointStores.inMemory()), new DurableQueue(DeadLetterQueues.inMemory()));

        assertThat(warnings()).isEmpty();
    }

    private List<LogLine> warnings() {
        return logs.lines(Level.WARN);
    }

    private static void run(CheckpointStore checkpoints, DeadLetterQueue queue) {
        EventProcessor orders = EventProcessor.builder("Orders", ProcessorKind.PROJECTION)
                .on(NamedAggregate.of("shop", "order"), String.class, (event, context) -> Mono.empty())
                .build();
        TrackingProcessor tracking = TrackingProcessor.builder(orders, EventStores.inMemory(), checkpoints)
                .deadLetterQueue(queue)
                .build();
        LanesRuntime runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(5), Duration.ofMillis(10));
        runtime.start().block(WAIT);
        runtime.shutdown().block(WAIT);
    }

    /** A checkpoint store that says its checkpoints outlive the process, as a database's do. */
    private record DurableCheckpoints(CheckpointStore store) implements CheckpointStore {
        @Override
        public Mono<Integer> segments(String processor, int count) {
            return store.segments(processor, count);
        }

        @Override
        public Mono<Boolean> claim(String processor, int segment, String owner, Duration lease) {
            return store.claim(processor, segment, owner, lease);
        }

        @Override
        public Mono<Long> load(String processor, int segment) {
            return store.load(processor, segment);
        }

        @Override
        public Mono<Boolean> save(String processor, int segment, String owner, long position) {
            return store.save(processor, segment, owner, position);
        }

        @Override
        public Mono<Void> release(String processor, int segment, String owner) {
            return store.release(processor, segment, owner);
        }

        @Override
        public Mono<Integer> heartbeat(String processor, String owner, Duration lease) {
            return store.heartbeat(processor, owner, lease);
        }

        @Override
        public Mono<Void> leave(String processor, String owner) {
            return store.leave(processor, owner);
        }

        @Override
        public Mono<List<SegmentCheckpoint>> checkpoints(String processor) {
            return store.checkpoints(processor);
        }

        @Override
        public Mono<List<String>> processors() {
            return store.processors();
        }

        @Override
        public Mono<Boolean> pause(String processor, int segment, boolean paused) {
            return store.pause(processor, segment, paused);
        }

        @Override
        public Mono<Boolean> requestSeek(String processor, int segment, long checkpoint) {
            return store.requestSeek(processor, segment, checkpoint);
        }

        @Override
        public Mono<Boolean> seek(String processor, int segment, String owner, long checkpoint) {
            return store.seek(processor, segment, owner, checkpoint);
        }

        @Override
        public String toString() {
            return "DurableCheckpoints";
        }
    }

    /** A dead-letter queue that says its letters outlive the process. */
    private static final class DurableQueue extends ForwardingDeadLetterQueue {
        DurableQueue(DeadLetterQueue queue) {
            super(queue);
        }
    }
}
