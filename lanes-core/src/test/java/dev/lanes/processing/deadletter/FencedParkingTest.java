package dev.lanes.processing.deadletter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.event.OwnershipFence;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The sequencer parks a stream with the fence its exchange carries, and a parking that the queue refuses because
 * another instance owns the stream's partition now ({@link OwnershipLostException}) hands the stream back to its source
 * instead of acknowledging it: neither handled nor parked here, and the processor does not run it for a parking behind
 * the head. The queue here models a shared one's fence over the in-memory queue (the PostgreSQL queue's is tested in
 * lanes-postgres).
 */
class FencedParkingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final String PROCESSOR = "Fenced";
    private static final AggregateId ID = AggregateId.of(NamedAggregate.of("sales", "order"), "o-1");
    private static final OwnershipFence.Epoch HELD = new OwnershipFence.Epoch("lanes.Fenced", "sales.events", 3, 1);

    private final FencingQueue queue = new FencingQueue(DeadLetterQueues.inMemory());
    private final ConcurrentLinkedQueue<Integer> delivered = new ConcurrentLinkedQueue<>();
    private final DeadLetterSequencer sequencer = new DeadLetterSequencer(
            PROCESSOR,
            queue,
            DeadLetterSequencer.Storing.untilStored(PROCESSOR, queue, Duration.ofMillis(10), Schedulers.parallel()),
            RetryPolicy.NONE,
            Clock.systemUTC(),
            message -> {
                DomainEventStream stream = (DomainEventStream) message;
                delivered.add(stream.version());
                return Mono.error(new IllegalStateException("poison v" + stream.version()));
            },
            DeadLetterSequencer.noReplies(PROCESSOR),
            (stream, error) -> {});

    @Test
    void aStreamWhoseParkingIsRefusedGoesBackToItsSourceUnacknowledged() {
        queue.epoch.set(2); // another instance claimed the partition

        Exchange exchange = handled(new Exchange(stream(1), HELD));

        assertThat(delivered).containsExactly(1);
        assertThat(exchange.setAside()).as("counted as set aside, not handled").isTrue();
        assertThat(exchange.outcome.get()).isInstanceOfSatisfying(OwnershipLostException.class, lost -> {
            assertThat(lost.held()).isEqualTo(HELD);
            assertThat(lost.currentEpoch()).isEqualTo(2);
            assertThat(lost.getSuppressed())
                    .singleElement()
                    .satisfies(error -> assertThat(error).hasMessage("poison v1"));
        });
        assertThat(queue.list(PROCESSOR, ID).block(TIMEOUT)).isEmpty();
    }

    @Test
    void aStreamWhoseParkingBehindTheHeadIsRefusedIsNotRunAndGoesBack() {
        handled(new Exchange(stream(1), HELD)); // the head, parked with the current epoch
        queue.epoch.set(2);

        Exchange exchange = handled(new Exchange(stream(2), HELD));

        assertThat(delivered).as("v2 not run ahead of its parked head").containsExactly(1);
        assertThat(exchange.outcome.get()).isInstanceOf(OwnershipLostException.class);
        assertThat(queue.list(PROCESSOR, ID).block(TIMEOUT))
                .extracting(letter -> letter.stream().version())
                .containsExactly(1);
    }

    @Test
    void aParkingCarriesTheFenceOfItsExchangeAndIsAcknowledgedOnceStored() {
        Exchange head = handled(new Exchange(stream(1), HELD));
        Exchange behind = handled(new Exchange(stream(2), HELD));

        assertThat(queue.fences).containsExactly(HELD, HELD);
        assertThat(head.outcome.get()).isEqualTo(Exchange.ACKNOWLEDGED);
        assertThat(behind.outcome.get()).isEqualTo(Exchange.ACKNOWLEDGED);
        assertThat(queue.list(PROCESSOR, ID).block(TIMEOUT))
                .extracting(letter -> letter.stream().version())
                .containsExactly(1, 2);
    }

    @Test
    void anExchangeOfABusThatDoesNotFenceParksWithNoFence() {
        queue.epoch.set(2);
        AtomicReference<@Nullable Object> outcome = new AtomicReference<>();
        MessageExchange<DomainEventStream> unfenced = new MessageExchange<>() {
            @Override
            public DomainEventStream message() {
                return stream(1);
            }

            @Override
            public AggregateId aggregateId() {
                return ID;
            }

            @Override
            public void acknowledge() {
                outcome.set(Exchange.ACKNOWLEDGED);
            }

            @Override
            public void reject(Throwable reason) {
                outcome.set(reason);
            }
        };
        AttemptedStream attempted = new AttemptedStream(unfenced);

        sequencer.handle(attempted).block(TIMEOUT);
        attempted.acknowledge();

        assertThat(queue.fences).containsExactly(OwnershipFence.NONE);
        assertThat(outcome.get()).isEqualTo(Exchange.ACKNOWLEDGED);
    }

    /** Handles the exchange as its lane would, then settles it as the dispatcher does after a handler that completed. */
    private Exchange handled(Exchange exchange) {
        AttemptedStream attempted = new AttemptedStream(exchange);
        sequencer.handle(attempted).block(TIMEOUT);
        exchange.setAside = attempted.setAside();
        attempted.acknowledge();
        return exchange;
    }

    private static DomainEventStream stream(int version) {
        return new DomainEventStream(
                "stream-" + version,
                ID,
                version,
                "request-" + version,
                "command-" + version,
                List.of(new DomainEvent(1, "v" + version)),
                Instant.EPOCH,
                Map.of());
    }

    /** A bus's exchange that carries a fence, and records how it was settled. */
    private static final class Exchange implements MessageExchange<DomainEventStream>, OwnershipFence.Fenced {
        static final String ACKNOWLEDGED = "acknowledged";

        final DomainEventStream stream;
        final OwnershipFence fence;
        final AtomicReference<@Nullable Object> outcome = new AtomicReference<>();
        boolean setAside;

        Exchange(DomainEventStream stream, OwnershipFence fence) {
            this.stream = stream;
            this.fence = fence;
        }

        @Override
        public DomainEventStream message() {
            return stream;
        }

        @Override
        public AggregateId aggregateId() {
            return stream.aggregateId();
        }

        @Override
        public void acknowledge() {
            outcome.set(ACKNOWLEDGED);
        }

        @Override
        public void reject(Throwable reason) {
            outcome.set(reason);
        }

        @Override
        public boolean setAside() {
            return setAside;
        }

        @Override
        public OwnershipFence fence() {
            return fence;
        }
    }

    /** The in-memory queue, fenced as a shared queue is: a parking whose epoch is not {@link #epoch} is refused. */
    private static final class FencingQueue extends ForwardingDeadLetterQueue {
        final AtomicLong epoch = new AtomicLong(1);
        final ConcurrentLinkedQueue<OwnershipFence> fences = new ConcurrentLinkedQueue<>();

        FencingQueue(DeadLetterQueue queue) {
            super(queue);
        }

        @Override
        public Mono<DeadLetter> enqueue(
                String processor, DomainEventStream stream, String reason, int attempts, OwnershipFence fence) {
            return fenced(processor, stream, fence)
                    .then(Mono.defer(() -> queue.enqueue(processor, stream, reason, attempts)));
        }

        @Override
        public Mono<DeadLetter> enqueueIfPresent(
                String processor, DomainEventStream stream, String reason, OwnershipFence fence) {
            return fenced(processor, stream, fence)
                    .then(Mono.defer(() -> queue.enqueueIfPresent(processor, stream, reason)));
        }

        private Mono<Void> fenced(String processor, DomainEventStream stream, OwnershipFence fence) {
            fences.add(fence);
            if (fence instanceof OwnershipFence.Epoch held && held.epoch() != epoch.get()) {
                return Mono.error(OwnershipLostException.refused(
                        "FencingQueue", "parking " + stream, processor, held, epoch.get(), "another instance"));
            }
            return Mono.empty();
        }

        @Override
        public Mono<DeadLetter> enqueue(String processor, DomainEventStream stream, String reason, int attempts) {
            throw new AssertionError("the sequencer parks with the fence of its exchange");
        }

        @Override
        public Mono<DeadLetter> enqueueIfPresent(String processor, DomainEventStream stream, String reason) {
            throw new AssertionError("the sequencer parks with the fence of its exchange");
        }
    }
}
