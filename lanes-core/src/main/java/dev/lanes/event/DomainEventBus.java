package dev.lanes.event;

import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.flow.IntakeGate;
import dev.lanes.messaging.DomainEventStream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Carries appended event streams to consumer groups. Each consumer group sees every stream of the aggregate types it
 * receives once, per aggregate in version order (when it is published in version order, as the command dispatcher
 * does). No order across aggregates or across groups.
 *
 * <p>Flow control: {@link #publish} must not wait for a consumer group to take the stream (a command lane publishes,
 * and a consumer may itself wait for that lane). A bus that holds streams in memory paces its publishers through {@link
 * #intakeGate}: the command side takes no new commands for a type while the gate of that type is closed.
 */
public interface DomainEventBus {

    /**
     * Publishes a stream to every consumer group of its aggregate type; completes once all of them hold it, without
     * waiting for any of them to take it. A bus whose acknowledgement comes later (Kafka's) may complete once the
     * stream's place in that order is fixed, if it holds back the settlement of the command that published it until
     * the acknowledgement came, so that a crash in between delivers the command again.
     */
    Mono<Void> publish(DomainEventStream stream);

    /**
     * The messaging system the streams travel through, as OpenTelemetry's {@code messaging.system} names it: {@code
     * lanes} for a bus inside the process (the default), {@code kafka} for Kafka. Traced, a publication on a bus other
     * than {@code lanes} is a span of its own (the produce hop), whose context the published stream carries.
     */
    default String messagingSystem() {
        return "lanes";
    }

    /** The streams of one aggregate type for one consumer group; one receiver per (group, type). */
    Flux<MessageExchange<DomainEventStream>> receive(String consumerGroup, NamedAggregate namedAggregate);

    /**
     * Closed while a consumer group of {@code namedAggregate} is further behind than the bus allows: the command
     * dispatcher admits new commands of that type through it. A durable bus whose consumers read at their own pace
     * never closes it (the default).
     */
    default IntakeGate intakeGate(NamedAggregate namedAggregate) {
        return IntakeGate.alwaysOpen();
    }

    /**
     * Registers {@code beforeDelivery} to run each time one of this instance's consumer groups takes over work that
     * another instance may have held (Kafka: a group member is assigned partitions), on the consumer thread that takes
     * it over, before any of that work is handed out. A bus that lets go of work only once its holder acknowledged what
     * it handed out (Kafka's revocation) runs it after the previous holder let go, so it sees what that holder stored
     * before acknowledging. It may block (never in a lane). One that throws is logged, naming the bus and the work, and
     * the work it was run for is held until it runs again and passes (the Kafka bus retries with a backoff); the rest
     * of the bus goes on. It runs for the work taken over after it was registered: register it before the bus starts.
     *
     * <p>A bus whose work never moves between instances never runs it (the default, and the in-memory bus).
     */
    default void onAssignment(Runnable beforeDelivery) {}

    /**
     * Registers {@code claims} to take ownership of each unit of work {@code consumerGroup}'s member on this instance
     * is assigned (Kafka: each partition), on its consumer thread, before the {@link #onAssignment} hooks run and
     * before any of the unit's work is handed out; the {@link OwnershipFence} it returns travels with every message of
     * that assignment ({@link OwnershipFence#of}), so that a write a store fences with it is refused once another
     * instance claimed the unit. One that throws holds the unit as a failing {@link #onAssignment} hook does, and is
     * run again until it passes. One per consumer group: a later registration replaces it. Register it before the bus
     * starts.
     *
     * <p>A bus whose work never moves between instances never runs it, and its messages carry {@link
     * OwnershipFence#NONE} (the default, and the in-memory bus).
     */
    default void claimAssignments(String consumerGroup, OwnershipClaims claims) {}
}
