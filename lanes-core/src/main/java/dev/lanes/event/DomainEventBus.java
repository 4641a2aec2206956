package dev.lanes.event;

import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.messaging.DomainEventStream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Carries appended event streams to consumer groups. Each consumer group sees every stream of the aggregate types it
 * receives once, per aggregate in version order (when it is published in version order, as the command dispatcher
 * does). No order across aggregates or across groups.
 */
public interface DomainEventBus {

    /** Publishes a stream to every consumer group of its aggregate type; completes once all of them hold it. */
    Mono<Void> publish(DomainEventStream stream);

    /** The streams of one aggregate type for one consumer group; one receiver per (group, type). */
    Flux<MessageExchange<DomainEventStream>> receive(String consumerGroup, NamedAggregate namedAggregate);
}
