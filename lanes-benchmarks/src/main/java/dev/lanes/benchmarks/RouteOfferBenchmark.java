package dev.lanes.benchmarks;

import dev.lanes.internal.route.BoundedRoute;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * Offers to the in-memory command bus's route from several threads at once, the consumer taking each value on the
 * offering thread (as the command dispatcher does when it has demand): the route's hand-over cost under contention.
 *
 * <ul>
 *   <li>{@code LOCK_FREE}: {@link BoundedRoute} as shipped: a multi-producer queue; one thread at a time delivers,
 *       the others leave once their value is queued.
 *   <li>{@code MONITOR}: the route as it was before: a single-producer queue, every offer (and the delivery it runs)
 *       under the route's monitor.
 * </ul>
 *
 * <p>Score: offers per microsecond, all threads together. Run with the producer count as JMH threads:
 *
 * <pre>
 * java -jar lanes-benchmarks/target/benchmarks.jar RouteOfferBenchmark -f 1 -wi 3 -i 5 -t 2
 * java -jar lanes-benchmarks/target/benchmarks.jar RouteOfferBenchmark -f 1 -wi 3 -i 5 -t 16
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouteOfferBenchmark {

    /** The route under test. */
    public enum Variant {
        LOCK_FREE,
        MONITOR
    }

    @Param({"LOCK_FREE", "MONITOR"})
    public Variant variant;

    private Offer offer;
    private final LongAdder taken = new LongAdder();

    /** One way to offer to a route. */
    private interface Offer {
        Sinks.EmitResult tryOffer(Object value);
    }

    @Setup(Level.Iteration)
    public void wire() {
        if (variant == Variant.LOCK_FREE) {
            BoundedRoute<Object> route = new BoundedRoute<>(1024);
            route.flux().subscribe(value -> taken.increment());
            offer = route::tryOffer;
        } else {
            MonitorRoute route = new MonitorRoute(1024);
            route.sink.asFlux().subscribe(value -> taken.increment());
            offer = route::tryOffer;
        }
    }

    @Benchmark
    public Sinks.EmitResult offer() {
        Sinks.EmitResult result = offer.tryOffer(Boolean.TRUE);
        if (result != Sinks.EmitResult.OK && result != Sinks.EmitResult.FAIL_OVERFLOW) {
            throw new IllegalStateException("route refused an offer: " + result);
        }
        return result;
    }

    /** The route before: a single-producer array queue, and the monitor around each emission. */
    private static final class MonitorRoute {
        final Sinks.Many<Object> sink;

        MonitorRoute(int capacity) {
            sink = Sinks.unsafe()
                    .many()
                    .unicast()
                    .onBackpressureBuffer(Queues.get(capacity).get());
        }

        Sinks.EmitResult tryOffer(Object value) {
            synchronized (this) {
                return sink.tryEmitNext(value);
            }
        }
    }
}
