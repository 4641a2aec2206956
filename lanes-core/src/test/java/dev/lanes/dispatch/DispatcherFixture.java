package dev.lanes.dispatch;

import dev.lanes.runtime.RuntimeContext;
import dev.lanes.scheduler.DefaultAggregateSchedulerSupplier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Sinks;

/** A dispatcher over a unicast sink, with its own scheduler supplier; closes everything it made. */
final class DispatcherFixture implements AutoCloseable {
    static final Duration PROMPTLY = Duration.ofSeconds(10);

    final Sinks.Many<MessageExchange<String>> source = Sinks.many().unicast().onBackpressureBuffer();
    final DefaultAggregateSchedulerSupplier schedulers;
    final InMemoryParkingLot parkingLot = ParkingLot.inMemory();
    private final List<AggregateDispatcher<String>> dispatchers = new ArrayList<>();

    DispatcherFixture(String supplierName, int workers) {
        this.schedulers = new DefaultAggregateSchedulerSupplier(supplierName, workers);
    }

    AggregateDispatcher.Builder<String> builder(ExchangeHandler<String> handler) {
        return AggregateDispatcher.<String>builder("TestDispatcher", TestExchange.ORDER)
                .source(source.asFlux())
                .handler(handler)
                .schedulers(schedulers)
                .parkingLot(parkingLot);
    }

    AggregateDispatcher<String> started(AggregateDispatcher.Builder<String> builder) {
        return started(builder.build(), RuntimeContext.standalone());
    }

    AggregateDispatcher<String> started(AggregateDispatcher<String> dispatcher, RuntimeContext context) {
        dispatchers.add(dispatcher);
        dispatcher.prepare(context).block(PROMPTLY);
        dispatcher.start();
        return dispatcher;
    }

    AggregateDispatcher<String> track(AggregateDispatcher<String> dispatcher) {
        dispatchers.add(dispatcher);
        return dispatcher;
    }

    void emit(MessageExchange<String> exchange) {
        source.emitNext(exchange, Sinks.EmitFailureHandler.busyLooping(Duration.ofSeconds(5)));
    }

    @Override
    public void close() {
        dispatchers.forEach(AggregateDispatcher::forceStop);
        schedulers.forceStop();
    }
}
