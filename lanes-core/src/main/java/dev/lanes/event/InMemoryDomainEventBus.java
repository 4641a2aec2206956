package dev.lanes.event;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.flow.Backlog;
import dev.lanes.flow.IntakeGate;
import dev.lanes.internal.Require;
import dev.lanes.internal.route.BacklogRoute;
import dev.lanes.internal.route.LocalExchange;
import dev.lanes.messaging.DomainEventStream;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An in-memory event bus: one route per (aggregate type, consumer group). {@link #publish} never waits: it hands the
 * stream to every group's route and completes, so a command lane is never held behind a slow event processor.
 *
 * <p><b>Budget.</b> Each route may hold {@code budget} streams its group has not taken. A route at its budget closes
 * the {@link #intakeGate intake gate} of its aggregate type, so the command dispatcher takes no new commands of that
 * type (they wait in the command bus, which refuses more when full) until every route of the type is back to half its
 * budget. Commands already admitted still run and publish, so a route may exceed its budget by what the command side
 * had admitted (at most its {@code maxQueued} per type) plus the follow-up commands of sagas: memory is bounded by
 * those bounds, not by how far behind a group is.
 *
 * <p>Not durable: a group sees the streams published after it subscribed; a stream its dispatcher rejects (it was
 * stopping) is logged and not redelivered. Use a durable bus where that matters.
 */
final class InMemoryDomainEventBus implements DomainEventBus {
    private static final Logger log = LoggerFactory.getLogger(InMemoryDomainEventBus.class);

    private final int budget;
    private final ConcurrentHashMap<MaterializedNamedAggregate, CopyOnWriteArrayList<GroupRoute>> routesByType =
            new ConcurrentHashMap<>();
    private final ConcurrentHashMap<MaterializedNamedAggregate, IntakeGate> gates = new ConcurrentHashMap<>();

    private record GroupRoute(String group, BacklogRoute<MessageExchange<DomainEventStream>> route) {}

    /**
     * @param budget streams a consumer group's route may hold before the intake of its aggregate type pauses
     * @throws IllegalArgumentException naming the value if {@code budget} is not positive
     */
    InMemoryDomainEventBus(int budget) {
        this.budget = Require.positive(budget, "budget");
    }

    @Override
    public Mono<Void> publish(DomainEventStream stream) {
        return Mono.fromRunnable(() -> {
            List<GroupRoute> routes = routesByType.get(stream.aggregateId().materialize());
            if (routes == null) {
                return;
            }
            for (GroupRoute target : routes) {
                if (!target.route().offer(exchange(target.group(), stream))) {
                    log.warn("{} consumer group '{}' is gone; {} not delivered to it", this, target.group(), stream);
                }
            }
        });
    }

    @Override
    public Flux<MessageExchange<DomainEventStream>> receive(String consumerGroup, NamedAggregate namedAggregate) {
        Require.notBlank(consumerGroup, "consumerGroup");
        MaterializedNamedAggregate type = namedAggregate.materialize();
        CopyOnWriteArrayList<GroupRoute> routes = routesByType.computeIfAbsent(type, t -> new CopyOnWriteArrayList<>());
        synchronized (routes) {
            for (GroupRoute existing : routes) {
                if (existing.group().equals(consumerGroup)) {
                    return existing.route().flux();
                }
            }
            Backlog backlog = new Backlog(intakeGate(type), budget);
            GroupRoute created = new GroupRoute(
                    consumerGroup,
                    new BacklogRoute<>(
                            backlog,
                            held -> held.reject(new IllegalStateException(
                                    this + " consumer group '" + consumerGroup + "' went away before taking it"))));
            routes.add(created);
            return created.route().flux();
        }
    }

    /** Closed while a group of {@code namedAggregate} holds its budget of streams, until back to half of it. */
    @Override
    public IntakeGate intakeGate(NamedAggregate namedAggregate) {
        MaterializedNamedAggregate type = namedAggregate.materialize();
        return gates.computeIfAbsent(type, t -> new IntakeGate(this + "/" + t));
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
        return "InMemoryDomainEventBus[budget=" + budget + "]";
    }
}
