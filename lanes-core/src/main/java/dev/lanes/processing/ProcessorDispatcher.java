package dev.lanes.processing;

import dev.lanes.command.CommandResults;
import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.ParkingLot;
import dev.lanes.event.DomainEventBus;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.runtime.ComponentGroup;
import dev.lanes.runtime.GroupedComponent;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One processor at run time: one lane engine per aggregate type it receives, on a borrowed scheduler supplier (its own
 * stop and force never release the shared schedulers). A projection reports each handled (or parked) stream to {@link
 * CommandResults}, which completes {@code PROJECTED} waits, and its stop, which ends the waits it will not complete.
 */
final class ProcessorDispatcher implements GroupedComponent {
    private final EventProcessor processor;
    private final @Nullable CommandResults results;
    private final List<AggregateDispatcher<DomainEventStream>> dispatchers;
    private final ComponentGroup group;

    ProcessorDispatcher(
            EventProcessor processor,
            DomainEventBus eventBus,
            AggregateSchedulerSupplier borrowed,
            LaneSettings settings,
            ParkingLot parkingLot,
            DispatcherMetrics metrics,
            @Nullable CommandResults results) {
        this.processor = processor;
        this.results = results;
        ParkingLot reportingParkingLot = parked -> {
            parkingLot.park(parked);
            if (results != null
                    && processor.kind() == ProcessorKind.PROJECTION
                    && parked.message() instanceof DomainEventStream stream) {
                results.projectionFailed(stream.commandId(), processor.name(), parked.error());
            }
        };
        this.dispatchers = processor.aggregateTypes().stream()
                .map(type -> AggregateDispatcher.<DomainEventStream>builder(processor.name(), type)
                        .source(Flux.defer(() -> eventBus.receive(processor.name(), type)))
                        .handler(this::handle)
                        .schedulers(borrowed)
                        .settings(settings)
                        .parkingLot(reportingParkingLot)
                        .metrics(metrics)
                        .build())
                .toList();
        this.group = new ComponentGroup(processor.name(), dispatchers, borrowed);
    }

    private Mono<Void> handle(MessageExchange<DomainEventStream> exchange) {
        DomainEventStream stream = exchange.message();
        Mono<Void> handling = processor.handle(stream);
        if (results == null || processor.kind() != ProcessorKind.PROJECTION) {
            return handling;
        }
        return handling.then(Mono.fromRunnable(() -> results.projected(stream.commandId(), processor.name())));
    }

    EventProcessor processor() {
        return processor;
    }

    List<AggregateDispatcher<DomainEventStream>> dispatchers() {
        return dispatchers;
    }

    /** Drains the children in reverse order, then stops the owned schedulers (see {@link ComponentGroup}). */
    @Override
    public ComponentGroup lifecycle() {
        return group;
    }

    /** Once drained, a projection's remaining {@code PROJECTED} waits end: it will handle nothing more. */
    @Override
    public Mono<Void> stopGracefully() {
        return group.stopGracefully().doFinally(signal -> projectionStopped(Reason.STOPPED));
    }

    /** A projection's {@code PROJECTED} waits on streams it will not handle end at once, as forced. */
    @Override
    public void forceStop() {
        try {
            group.forceStop();
        } finally {
            projectionStopped(Reason.FORCED);
        }
    }

    private void projectionStopped(Reason reason) {
        if (results != null && processor.kind() == ProcessorKind.PROJECTION) {
            results.projectionStopped(processor.name(), reason);
        }
    }

    @Override
    public String name() {
        return processor.name();
    }

    @Override
    public String toString() {
        return "ProcessorDispatcher[" + processor.name() + "]";
    }
}
