package dev.lanes.command;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.internal.Require;
import dev.lanes.messaging.BoundedRoute;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.LocalExchange;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A bounded in-memory command bus: one route per aggregate type holding at most {@code capacityPerType} commands
 * (rounded up to a power of two, at least 8) that its dispatcher has not taken yet. A rejection by the dispatcher (lane
 * full, stopping) reaches the sender through the {@link CommandResults} it registered with.
 *
 * <p>A route exists once a receiver declared its type ({@link #receive}, which the command dispatcher calls when it is
 * built): a command for any other type is refused at send with {@link UnknownAggregateTypeException}, and nothing is
 * kept for it.
 */
public final class InMemoryCommandBus implements CommandBus {
    private final ConcurrentHashMap<MaterializedNamedAggregate, BoundedRoute<MessageExchange<CommandMessage>>> routes =
            new ConcurrentHashMap<>();
    private final int capacityPerType;
    private final CommandResults results;

    public InMemoryCommandBus(int capacityPerType, CommandResults results) {
        this.capacityPerType = Require.positive(capacityPerType, "capacityPerType");
        this.results = Objects.requireNonNull(results, "results");
    }

    @Override
    public Mono<Void> send(CommandMessage command) {
        return Mono.defer(() -> {
            MaterializedNamedAggregate type = command.aggregateId().materialize();
            BoundedRoute<MessageExchange<CommandMessage>> route = routes.get(type);
            if (route == null) {
                return Mono.error(UnknownAggregateTypeException.of(toString(), type, routes.keySet()));
            }
            LocalExchange<CommandMessage> exchange = new LocalExchange<>(
                    command, command.aggregateId(), () -> {}, reason -> results.failed(command, reason));
            Sinks.EmitResult result = route.tryOffer(exchange);
            if (result.isSuccess()) {
                return Mono.empty();
            }
            if (result == Sinks.EmitResult.FAIL_OVERFLOW) {
                return Mono.error(new CommandBusOverloadedException(toString(), type, route.capacity()));
            }
            return Mono.error(new IllegalStateException(
                    this + " has no receiver for " + type + " any more (" + result + "); " + command + " not sent"));
        });
    }

    /** Declares {@code namedAggregate}: from now on the bus takes its commands and holds them for the one receiver. */
    @Override
    public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate) {
        MaterializedNamedAggregate type = namedAggregate.materialize();
        BoundedRoute<MessageExchange<CommandMessage>> route =
                routes.computeIfAbsent(type, t -> new BoundedRoute<>(capacityPerType));
        // commands still held when the receiver goes away are answered, never dropped in silence
        return route.flux().doOnDiscard(LocalExchange.class, held -> {
            if (held.message() instanceof CommandMessage command) {
                results.stopped(
                        command,
                        StageNotReachedException.Reason.STOPPED,
                        new IllegalStateException(this + ": the dispatcher of " + type + " stopped before taking "
                                + command + "; not processed"));
            }
        });
    }

    @Override
    public String toString() {
        return "InMemoryCommandBus[capacityPerType=" + capacityPerType + "]";
    }
}
