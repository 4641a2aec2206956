package dev.lanes.kafka;

import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.CommandResults;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * One Lanes instance on Kafka: its own connection, command dispatcher, event processors (a projection and an audit
 * handler, writing to read models shared by the test's instances), runtime and gateway, over a given event store.
 */
final class KafkaNode implements AutoCloseable {
    final String name;
    final KafkaBuses kafka;
    final CommandResults results =
            new CommandResults(Duration.ofSeconds(60), reactor.core.scheduler.Schedulers.parallel());
    final KafkaCommandBus commandBus;
    final CommandDispatcher commands;
    final CompositeEventDispatcher events;
    final LanesRuntime runtime;
    final CommandGateway gateway;

    KafkaNode(String name, KafkaOptions options, EventStore store, ReadModel balances, ReadModel audit) {
        this(name, options, store, balances, audit, UnaryOperator.identity());
    }

    KafkaNode(
            String name,
            KafkaOptions options,
            EventStore store,
            ReadModel balances,
            ReadModel audit,
            UnaryOperator<CommandDispatcher.Builder> commandSide) {
        this.name = name;
        this.kafka = KafkaBuses.create(options.withInstanceId(name));
        this.commandBus = kafka.commandBus(results);
        KafkaDomainEventBus eventBus = kafka.eventBus();
        this.commands = commandSide
                .apply(CommandDispatcher.builder(commandBus, store, eventBus, results)
                        .name(name + "-commands")
                        .register(Ledger.definition())
                        .settings(KafkaBuses.COMMAND_SETTINGS.withStrategy(LaneStrategy.KEYED)))
                .build();
        this.events = CompositeEventDispatcher.builder(name + "-events", eventBus)
                .processor(EventProcessor.builder("Balances", ProcessorKind.PROJECTION)
                        .on(
                                Ledger.ACCOUNT,
                                Object.class,
                                (event, context) -> context.event().sequence() == 1
                                        ? Mono.fromRunnable(() -> balances.apply(context.stream()))
                                        : Mono.empty())
                        .build())
                .processor(EventProcessor.builder("Audit", ProcessorKind.HANDLER)
                        .on(
                                Ledger.ACCOUNT,
                                Object.class,
                                (event, context) -> context.event().sequence() == 1
                                        ? Mono.fromRunnable(() -> audit.apply(context.stream()))
                                        : Mono.empty())
                        .build())
                .build();
        this.runtime =
                new LanesRuntime(kafka.components(commands, events), Duration.ofSeconds(60), Duration.ofMillis(100));
        this.gateway = CommandGateways.create(commandBus, store, results);
    }

    KafkaNode start() {
        runtime.start().block(Duration.ofSeconds(90));
        return this;
    }

    ShutdownReport stop() {
        return runtime.shutdown().block(Duration.ofSeconds(90));
    }

    /** A crash as far as Kafka can tell: nothing more is committed, and the consumers leave. */
    void kill() {
        runtime.forceStop();
    }

    @Override
    public void close() {
        if (runtime.state() != LanesRuntime.State.STOPPED) {
            stop();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
