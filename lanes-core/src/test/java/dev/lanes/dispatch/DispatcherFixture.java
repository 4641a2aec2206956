package dev.lanes.dispatch;

import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/** A dispatcher over a unicast sink, with its own scheduler supplier; closes everything it made. */
final class DispatcherFixture implements AutoCloseable {
    static final Duration PROMPTLY = Duration.ofSeconds(10);

    final Sinks.Many<MessageExchange<String>> source = Sinks.many().unicast().onBackpressureBuffer();
    final AggregateSchedulerSupplier schedulers;
    final RetainingParkingLot parkingLot = ParkingLots.inMemory();
    private final List<AggregateDispatcher<String>> dispatchers = new ArrayList<>();

    /** Every distinct scheduler the supplier handed out. */
    final Set<Scheduler> handedOut = ConcurrentHashMap.newKeySet();

    DispatcherFixture(String supplierName, int workers) {
        this.schedulers = new Recording(AggregateSchedulers.perType(supplierName, workers), handedOut);
    }

    /** Records what the supplier hands out; everything else is the supplier's own. */
    private record Recording(AggregateSchedulerSupplier supplier, Set<Scheduler> handedOut)
            implements AggregateSchedulerSupplier {
        @Override
        public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
            Scheduler scheduler = supplier.getOrInitialize(namedAggregate);
            handedOut.add(scheduler);
            return scheduler;
        }

        @Override
        public Mono<Void> stopGracefully() {
            return supplier.stopGracefully();
        }

        @Override
        public void forceStop() {
            supplier.forceStop();
        }

        @Override
        public String toString() {
            return supplier.toString();
        }
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
