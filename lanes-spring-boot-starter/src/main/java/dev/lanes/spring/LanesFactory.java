package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds the auto-configured {@link Lanes} from what the application context holds: the aggregates, processors and
 * infrastructure beans, then the properties, then the customizers (last, so they can override anything).
 *
 * @param aggregates every {@link AggregateDefinition} bean, in bean order
 * @param processors every {@link EventProcessor} bean
 * @param factories every {@link EventProcessorFactory} bean (sagas)
 * @param eventStore where streams are stored
 * @param snapshotStore where snapshots are loaded from, or {@code null} for none
 * @param eventBus the event bus, or {@code null} for the in-memory one
 * @param metrics where dispatchers record, or {@code null} for none
 * @param customizers applied last, in order
 */
record LanesFactory(
        List<AggregateDefinition<?>> aggregates,
        List<EventProcessor> processors,
        List<EventProcessorFactory> factories,
        EventStore eventStore,
        @Nullable SnapshotStore snapshotStore,
        @Nullable DomainEventBus eventBus,
        @Nullable DispatcherMetrics metrics,
        List<LanesBuilderCustomizer> customizers) {

    LanesFactory {
        aggregates = List.copyOf(aggregates);
        processors = List.copyOf(processors);
        factories = List.copyOf(factories);
        Objects.requireNonNull(eventStore, "eventStore");
        customizers = List.copyOf(customizers);
    }

    /**
     * Wires the instance; starts nothing.
     *
     * @throws IllegalStateException when the context declares no {@link AggregateDefinition} bean
     */
    Lanes build(LanesProperties properties, DispatcherSchedulers schedulers, LanesParkingLots parking) {
        if (aggregates.isEmpty()) {
            throw new IllegalStateException("Lanes auto-configuration found no AggregateDefinition bean: declare one"
                    + " (@Bean AggregateDefinition<Account> account() { ... }) or exclude LanesAutoConfiguration");
        }
        Lanes.Builder builder = Lanes.builder()
                .eventStore(eventStore)
                .shutdownTimeout(properties.shutdownTimeout())
                .quietPeriod(properties.quietPeriod())
                .commandTimeout(properties.commandTimeout())
                .commandBusCapacity(properties.commandBusCapacity())
                .commandParkingLot(parking.commands())
                .eventParkingLot(parking.events());
        if (schedulers instanceof SharedWorkers shared) {
            builder.sharedWorkers(shared.workers());
        } else {
            builder.schedulers(schedulers::create);
        }
        aggregates.forEach(builder::aggregate);
        processors.forEach(builder::processor);
        factories.forEach(factory -> builder.processor(factory::create));
        if (snapshotStore != null) {
            builder.snapshotStore(snapshotStore);
        }
        if (eventBus != null) {
            builder.eventBus(eventBus);
        }
        if (metrics != null) {
            builder.metrics(metrics);
        }
        customizers.forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }
}
