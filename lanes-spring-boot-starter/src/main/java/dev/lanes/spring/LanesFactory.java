package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.process.ProcessManager;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.Snapshotter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.tracing.MessageTracing;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Builds the auto-configured {@link Lanes} from what the application context holds: the aggregates, processors and
 * infrastructure beans, then the properties, then the customizers (last, so they can override anything).
 *
 * <p>Each {@link EventProcessor} bean gets its feed ({@link LanesProperties.Feed}): {@code lanes.processors.feed.<name>}
 * if set, else, with a durable {@code checkpoints} store (PostgreSQL), {@code replay} for a projection and {@code
 * tracking} for a handler or snapshotter, and {@code bus} otherwise; sagas are always fed by the bus. Processors fed
 * from the store are {@link TrackingProcessor}s with the dispatcher metrics and the instance's dead-letter queue.
 *
 * @param aggregates every {@link AggregateDefinition} bean, in bean order
 * @param processors every {@link EventProcessor} bean
 * @param factories every {@link EventProcessorFactory} bean (sagas), fed by the bus
 * @param eventStore where streams are stored
 * @param snapshotStore where snapshots are loaded from, or {@code null} for none
 * @param eventBus the event bus, or {@code null} for the in-memory one
 * @param metrics where dispatchers record, or {@code null} for none
 * @param tracing what traces sends, lanes and processors (those fed from the store included), or {@code null} for none
 * @param checkpoints where {@code tracking} processors keep their checkpoints, or {@code null} for none (then no
 *     processor is {@code tracking} unless set, and setting it fails)
 * @param deadLetterQueue where processors park, or {@code null} for the in-memory queue
 * @param processManagers registered with their instances and routing sagas; those that react to deadlines get a
 *     deadline runner over their store unless {@code lanes.deadlines.run=false}
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
        @Nullable MessageTracing tracing,
        @Nullable CheckpointStore checkpoints,
        @Nullable DeadLetterQueue deadLetterQueue,
        List<ProcessManager<?>> processManagers,
        List<LanesBuilderCustomizer> customizers) {

    LanesFactory {
        aggregates = List.copyOf(aggregates);
        processors = List.copyOf(processors);
        factories = List.copyOf(factories);
        Objects.requireNonNull(eventStore, "eventStore");
        processManagers = List.copyOf(processManagers);
        customizers = List.copyOf(customizers);
    }

    /**
     * Wires the instance; starts nothing. Records each processor's feed, and those fed from the store, in {@code
     * wiring}.
     *
     * @throws IllegalStateException when the context declares no {@link AggregateDefinition} bean
     * @throws LanesConfigurationException naming the property when {@code lanes.processors.feed.<name>} names no
     *     processor bean, asks a saga to be fed from the store, or asks for {@code tracking} without a checkpoint store;
     *     or when {@code lanes.processors.segments.<name>} names no processor, is not a power of two from 1 to 1024,
     *     or splits a processor that is not fed by {@code tracking}; or when the process managers that react to
     *     deadlines schedule them in more than one store
     */
    Lanes build(
            LanesProperties properties, DispatcherSchedulers schedulers, LanesParkingLots parking, LanesWiring wiring) {
        if (aggregates.isEmpty()) {
            throw new IllegalStateException("Lanes auto-configuration found no AggregateDefinition bean: declare one"
                    + " (@Bean AggregateDefinition<Account> account() { ... }) or exclude LanesAutoConfiguration");
        }
        Map<String, LanesProperties.Feed> configured = properties.processors().feed();
        requireKnownProcessors("lanes.processors.feed.", configured);
        requireKnownProcessors(
                "lanes.processors.segments.", properties.processors().segments());
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
        if (deadLetterQueue != null) {
            builder.deadLetterQueue(deadLetterQueue);
        }
        for (EventProcessor processor : processors) {
            LanesProperties.Feed feed = feedOf(processor, configured.get(processor.name()));
            TrackingSettings settings = segmentsOf(processor, feed, properties);
            wiring.feed(processor.name(), name(feed));
            if (feed == LanesProperties.Feed.BUS) {
                builder.processor(processor);
            } else {
                track(builder, processor, feed, settings, wiring);
            }
        }
        factories.forEach(factory -> builder.processor(factory::create));
        processManagers.forEach(builder::processManager);
        fireDeadlines(builder, properties, wiring);
        int interval = properties.postgres().snapshotInterval();
        if (snapshotStore != null) {
            builder.snapshotStore(snapshotStore);
            if (interval > 0) {
                for (AggregateDefinition<?> aggregate : aggregates) {
                    EventProcessor snapshotter = snapshotter(aggregate, snapshotStore, interval);
                    builder.processor(snapshotter);
                    wiring.feed(snapshotter.name(), name(LanesProperties.Feed.BUS));
                }
            }
        }
        if (eventBus != null) {
            builder.eventBus(eventBus);
        }
        if (metrics != null) {
            builder.metrics(metrics);
        }
        if (tracing != null) {
            builder.tracing(tracing);
        }
        customizers.forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    private void track(
            Lanes.Builder builder,
            EventProcessor processor,
            LanesProperties.Feed feed,
            TrackingSettings settings,
            LanesWiring wiring) {
        CheckpointStore durable = checkpoints;
        CheckpointStore store =
                feed == LanesProperties.Feed.TRACKING && durable != null ? durable : CheckpointStores.inMemory();
        DispatcherMetrics recording = metrics != null ? metrics : DispatcherMetrics.NONE;
        MessageTracing traced = tracing != null ? tracing : MessageTracing.NONE;
        AtomicReference<@Nullable TrackingProcessor> local = new AtomicReference<>();
        builder.trackingProcessor((events, queue) -> {
            TrackingProcessor built = TrackingProcessor.builder(processor, events, store)
                    .settings(settings)
                    .deadLetterQueue(queue)
                    .metrics(recording)
                    .tracing(traced)
                    .build();
            local.set(built);
            return built;
        });
        wiring.track(new LanesWiring.Tracked(processor.name(), feed, processor.aggregateTypes(), store, local));
    }

    /** The tracking settings of a processor fed from the store: its {@code lanes.processors.segments.<name>}. */
    private static TrackingSettings segmentsOf(
            EventProcessor processor, LanesProperties.Feed feed, LanesProperties properties) {
        String property = "lanes.processors.segments." + processor.name();
        Integer segments = properties.processors().segments().get(processor.name());
        if (segments == null) {
            return TrackingSettings.DEFAULT;
        }
        TrackingSettings settings;
        try {
            settings = TrackingSettings.DEFAULT.withSegments(segments);
        } catch (IllegalArgumentException invalid) {
            throw new LanesConfigurationException(
                    property + "=" + segments + ": " + invalid.getMessage(),
                    "Set " + property + " to a power of two from 1 to " + Segment.MAX_COUNT + ".");
        }
        if (feed != LanesProperties.Feed.TRACKING && segments != 1) {
            throw new LanesConfigurationException(
                    property + "=" + segments + ": only a tracking processor is split into segments, and "
                            + processor.name() + " is fed by " + name(feed),
                    "Set lanes.processors.feed." + processor.name() + " to tracking, or remove " + property + ".");
        }
        return settings;
    }

    private LanesProperties.Feed feedOf(EventProcessor processor, LanesProperties.@Nullable Feed configured) {
        String property = "lanes.processors.feed." + processor.name();
        if (processor.kind() == ProcessorKind.SAGA) {
            if (configured != null && configured != LanesProperties.Feed.BUS) {
                throw new LanesConfigurationException(
                        property + ": '" + name(configured) + "' is not possible for the saga " + processor.name()
                                + ", which is fed by the bus only (its commands must not be sent again on a replay)",
                        "Remove " + property + " or set it to bus.");
            }
            return LanesProperties.Feed.BUS;
        }
        boolean durable = checkpoints != null && checkpoints.durable();
        if (configured == LanesProperties.Feed.TRACKING && checkpoints == null) {
            throw new LanesConfigurationException(
                    property + ": 'tracking' needs a checkpoint store, and this application has none (the store is "
                            + eventStore + ")",
                    "Store the events in PostgreSQL (lanes-postgres and a DataSource), declare a CheckpointStore bean,"
                            + " or set " + property + " to replay or bus.");
        }
        if (configured != null) {
            return configured;
        }
        if (!durable) {
            return LanesProperties.Feed.BUS;
        }
        return processor.kind() == ProcessorKind.PROJECTION
                ? LanesProperties.Feed.REPLAY
                : LanesProperties.Feed.TRACKING;
    }

    private void requireKnownProcessors(String prefix, Map<String, ?> configured) {
        Set<String> names = new TreeSet<>();
        processors.forEach(processor -> names.add(processor.name()));
        for (Map.Entry<String, ?> entry : configured.entrySet()) {
            if (!names.contains(entry.getKey())) {
                Object value = entry.getValue();
                throw new LanesConfigurationException(
                        prefix + entry.getKey() + ": '"
                                + (value instanceof LanesProperties.Feed feed ? name(feed) : value)
                                + "' names no EventProcessor bean (the processor beans are: " + names + ")",
                        "Use the processor's name (EventProcessor.name()), or remove the property.");
            }
        }
    }

    /**
     * Runs one deadline runner over the store the process managers that react to deadlines schedule them in: without
     * it their deadlines would be stored and never fire here.
     */
    private void fireDeadlines(Lanes.Builder builder, LanesProperties properties, LanesWiring wiring) {
        Map<DeadlineStore, List<String>> managersByStore = new IdentityHashMap<>();
        for (ProcessManager<?> manager : processManagers) {
            if (!manager.deadlineNames().isEmpty()) {
                managersByStore
                        .computeIfAbsent(manager.deadlineStore(), store -> new ArrayList<>())
                        .add(manager.name());
            }
        }
        if (managersByStore.isEmpty()) {
            wiring.describe("deadlines", processManagers.isEmpty() ? "none" : "no process manager reacts to one");
            return;
        }
        if (!properties.deadlines().run()) {
            wiring.describe("deadlines", "not fired here (lanes.deadlines.run=false)");
            return;
        }
        if (managersByStore.size() > 1) {
            throw new LanesConfigurationException(
                    "The process managers that react to deadlines keep them in " + managersByStore.size()
                            + " different stores (" + managersByStore.values() + "), and an instance runs one"
                            + " deadline runner",
                    "Build them all with the DeadlineStore bean, or set lanes.deadlines.run=false and fire their"
                            + " deadlines with runners of your own.");
        }
        Map.Entry<DeadlineStore, List<String>> only =
                managersByStore.entrySet().iterator().next();
        builder.deadlines(only.getKey());
        wiring.describe("deadlines", only.getKey() + ", fired here for " + only.getValue());
    }

    private <S> EventProcessor snapshotter(AggregateDefinition<S> aggregate, SnapshotStore snapshots, int interval) {
        return Snapshotter.processor(
                "Snapshotter-" + aggregate.namedAggregate(), aggregate, eventStore, snapshots, interval);
    }

    static String name(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
