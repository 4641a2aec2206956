package dev.lanes.command;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.flow.IntakeGate;
import dev.lanes.internal.route.BacklogRoute;
import dev.lanes.internal.route.BoundedRoute;
import dev.lanes.internal.route.LocalExchange;
import dev.lanes.messaging.CommandMessage;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * An in-memory command bus with two routes per aggregate type:
 *
 * <ul>
 *   <li><b>new commands</b>: at most {@code capacityPerType} (rounded up to a power of two, at least 8) that the
 *       dispatcher has not taken yet, plus one in hand-over to it; when full, a send fails fast with {@link
 *       CommandBusOverloadedException}. The dispatcher takes them only while its intake gate is open (the event side
 *       has room);
 *   <li><b>follow-ups</b> ({@link CommandMessage#isFollowUp()}, a saga's commands): always taken and never held
 *       behind the gate, so work in progress is never stranded by the pause it is part of. They are bounded where
 *       they are made (a saga holds at most its budget of pending commands).
 * </ul>
 *
 * <p>A route exists once a receiver declared its type ({@link #receive}, which the command dispatcher calls when it is
 * built): a command for any other type is refused at send with {@link UnknownAggregateTypeException}, and nothing is
 * kept for it. A rejection by the dispatcher (lane full, stopping) reaches the sender through the {@link
 * CommandResults} it registered with; commands still held when the dispatcher goes away are answered as stopped.
 */
final class InMemoryCommandBus implements CommandBus {
    private final ConcurrentHashMap<MaterializedNamedAggregate, Routes> routes = new ConcurrentHashMap<>();
    private final int capacityPerType;
    private final CommandResults results;

    /** The two routes of one aggregate type. */
    private record Routes(
            BoundedRoute<MessageExchange<CommandMessage>> commands,
            BacklogRoute<MessageExchange<CommandMessage>> followUps) {}

    InMemoryCommandBus(int capacityPerType, CommandResults results) {
        this.capacityPerType = BoundedRoute.requireCapacity(capacityPerType, "capacityPerType");
        this.results = Objects.requireNonNull(results, "results");
        results.servedLocally(toString());
    }

    @Override
    public Mono<Void> send(CommandMessage command) {
        // a Callable Mono: a sender that knows may run it with a plain call (the gateway does)
        return Mono.fromRunnable(() -> offer(command));
    }

    /** Hands the command to its route, or throws why it cannot: nothing was sent then. */
    private void offer(CommandMessage command) {
        MaterializedNamedAggregate type = command.aggregateId().materialize();
        Routes declared = routes.get(type);
        if (declared == null) {
            throw UnknownAggregateTypeException.of(toString(), type, routes.keySet());
        }
        LocalExchange<CommandMessage> exchange = new LocalExchange<>(
                command, command.aggregateId(), () -> {}, reason -> results.failed(command, reason));
        if (command.isFollowUp()) {
            if (!declared.followUps().offer(exchange)) {
                throw gone(type, command, "its receiver stopped");
            }
            return;
        }
        Sinks.EmitResult result = declared.commands().tryOffer(exchange);
        if (result.isSuccess()) {
            return;
        }
        if (result == Sinks.EmitResult.FAIL_OVERFLOW) {
            throw new CommandBusOverloadedException(
                    toString(), type, declared.commands().capacity());
        }
        throw gone(type, command, "it stopped taking new commands");
    }

    private ReceiverStoppedException gone(MaterializedNamedAggregate type, CommandMessage command, String why) {
        return new ReceiverStoppedException(this + " does not take " + command + ": the receiver of " + type
                + " is stopping (" + why + "); nothing was sent");
    }

    /** Declares {@code namedAggregate} with an intake gate that never closes. */
    @Override
    public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate) {
        return receive(namedAggregate, IntakeGate.alwaysOpen());
    }

    /**
     * Declares {@code namedAggregate}: from now on the bus takes its commands and holds them for the one receiver. New
     * commands flow to it while {@code gate} is open; follow-ups always.
     */
    @Override
    public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate, IntakeGate gate) {
        Objects.requireNonNull(gate, "gate");
        MaterializedNamedAggregate type = namedAggregate.materialize();
        Routes declared = routes.computeIfAbsent(
                type,
                t -> new Routes(
                        new BoundedRoute<>(capacityPerType), new BacklogRoute<>(null, held -> stopped(t, held))));
        // commands still held when the receiver goes away are answered, never dropped in silence; prefetch 1: the
        // merge holds at most one command of each route in hand-over, so the bus's bound stays its bound
        return Flux.merge(
                        1,
                        declared.followUps().flux(),
                        gate.admit(declared.commands().flux()))
                .doOnDiscard(LocalExchange.class, held -> stopped(type, held));
    }

    private void stopped(MaterializedNamedAggregate type, MessageExchange<?> held) {
        if (held.message() instanceof CommandMessage command) {
            results.stopped(
                    command,
                    Reason.STOPPED,
                    new IllegalStateException(
                            this + ": the dispatcher of " + type + " stopped before taking " + command));
        }
    }

    @Override
    public String toString() {
        return "InMemoryCommandBus[capacityPerType=" + capacityPerType + "]";
    }
}
