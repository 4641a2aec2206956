package dev.lanes.event;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.internal.Require;
import dev.lanes.messaging.BoundedRoute;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.messaging.LocalExchange;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A bounded in-memory event bus: one route per (aggregate type, consumer group) holding at most {@code capacity}
 * streams (rounded up to a power of two, at least 8). When a group's route is full, {@link #publish} waits, without blocking a
 * thread, until that group takes more: backpressure reaches the command lane that published.
 *
 * <p>Not durable: a group sees the streams published after it subscribed; a stream its dispatcher rejects (it was
 * stopping) is logged and not redelivered. Use a durable bus where that matters.
 */
public final class InMemoryDomainEventBus implements DomainEventBus {
    private static final Logger log = LoggerFactory.getLogger(InMemoryDomainEventBus.class);

    private final int capacity;
    private final ConcurrentHashMap<MaterializedNamedAggregate, CopyOnWriteArrayList<GroupRoute>> routesByType =
            new ConcurrentHashMap<>();

    private record GroupRoute(String group, BoundedRoute<MessageExchange<DomainEventStream>> route) {}

    public InMemoryDomainEventBus(int capacity) {
        this.capacity = BoundedRoute.requireCapacity(capacity, "capacity");
    }

    @Override
    public Mono<Void> publish(DomainEventStream stream) {
        List<GroupRoute> routes = routesByType.get(stream.aggregateId().materialize());
        if (routes == null) {
            return Mono.empty();
        }
        return Flux.fromIterable(routes)
                .concatMap(target -> target.route()
                        .offer(exchange(target.group(), stream))
                        .onErrorResume(gone -> {
                            log.warn(
                                    "{} consumer group '{}' is gone; {} not delivered to it",
                                    this,
                                    target.group(),
                                    stream);
                            return Mono.empty();
                        }))
                .then();
    }

    @Override
    public Flux<MessageExchange<DomainEventStream>> receive(String consumerGroup, NamedAggregate namedAggregate) {
        Require.notBlank(consumerGroup, "consumerGroup");
        CopyOnWriteArrayList<GroupRoute> routes =
                routesByType.computeIfAbsent(namedAggregate.materialize(), type -> new CopyOnWriteArrayList<>());
        synchronized (routes) {
            for (GroupRoute existing : routes) {
                if (existing.group().equals(consumerGroup)) {
                    return existing.route().flux();
                }
            }
            GroupRoute created = new GroupRoute(consumerGroup, new BoundedRoute<>(capacity));
            routes.add(created);
            return created.route().flux();
        }
    }

    private LocalExchange<DomainEventStream> exchange(String group, DomainEventStream stream) {
        return new LocalExchange<>(
                stream,
                stream.aggregateId(),
                () -> {},
                // a rejection comes with a stop, and the dispatcher logs one line with the count: DEBUG per stream
                reason -> log.debug("{} consumer group '{}' rejected {}: {}", this, group, stream, reason.toString()));
    }

    @Override
    public String toString() {
        return "InMemoryDomainEventBus[capacity=" + capacity + "]";
    }
}
