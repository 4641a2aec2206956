package dev.lanes.cli;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.runtime.RuntimeContext;
import dev.lanes.scheduler.DefaultAggregateSchedulerSupplier;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The lane engine end to end: several aggregate types, per-id sequences checked by the handlers, transient failures
 * retried in their lanes, a poison message parked, and one stuck lane that holds up nobody else.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, description = "Run the lane engine demo and print a report.")
final class DemoCommand implements Callable<Integer> {
    private static final List<NamedAggregate> TYPES = List.of(
            NamedAggregate.of("sales", "order"),
            NamedAggregate.of("sales", "invoice"),
            NamedAggregate.of("billing", "payment"));
    private static final String STUCK_ID = "stuck-1";
    private static final String POISON_ID = "poison-1";

    @Spec
    @SuppressWarnings("NullAway.Init") // injected by picocli before call()
    CommandSpec spec;

    @Option(names = "--messages", defaultValue = "300000", description = "Messages in all (default: ${DEFAULT-VALUE}).")
    int messages;

    @Option(
            names = "--aggregates",
            defaultValue = "2000",
            description = "Aggregate ids per type (default: ${DEFAULT-VALUE}).")
    int aggregates;

    @Option(names = "--strategy", defaultValue = "KEYED", description = "HASHED or KEYED (default: ${DEFAULT-VALUE}).")
    LaneStrategy strategy = LaneStrategy.KEYED;

    @Override
    public Integer call() {
        if (messages <= 0 || aggregates <= 0) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "--messages and --aggregates must be positive: " + messages + ", " + aggregates);
        }
        PrintWriter out = spec.commandLine().getOut();
        DefaultAggregateSchedulerSupplier schedulers = new DefaultAggregateSchedulerSupplier("demo");
        ConcurrentHistogram latency = new ConcurrentHistogram(3);
        ConcurrentHashMap<String, AtomicLong> lastSeen = new ConcurrentHashMap<>();
        LongAdder violations = new LongAdder();
        LongAdder settled = new LongAdder();
        Sinks.Empty<Void> releaseStuck = Sinks.empty();
        List<AggregateDispatcher<long[]>> dispatchers = new ArrayList<>();
        int perType = messages / TYPES.size();
        for (NamedAggregate type : TYPES) {
            dispatchers.add(AggregateDispatcher.<long[]>builder("Demo", type)
                    .source(source(type, perType, latency, settled))
                    .schedulers(schedulers)
                    .settings(LaneSettings.DEFAULT
                            .withStrategy(strategy)
                            .withRetryPolicy(
                                    RetryPolicy.DEFAULT.withBackoff(Duration.ofMillis(1), Duration.ofMillis(10))))
                    .handler(exchange -> handle(exchange, lastSeen, violations, releaseStuck))
                    .build());
        }
        long started = System.nanoTime();
        dispatchers.forEach(d -> d.prepare(RuntimeContext.standalone()).block(Duration.ofSeconds(10)));
        dispatchers.forEach(AggregateDispatcher::start);
        long expected = (long) perType * TYPES.size();
        long stuckMessages = stuckCount(perType) * TYPES.size();
        long lastSettled = -1;
        long lastProgressAt = System.nanoTime();
        int idleTicks = 0;
        // under HASHED, ids that share the stuck lane's group wait too: stop waiting once nothing moves
        while (settled.sum() < expected - stuckMessages && idleTicks < 4) {
            progress(out, dispatchers, settled.sum(), expected, started);
            sleepQuietly(Duration.ofMillis(500));
            long now = settled.sum();
            if (now == lastSettled) {
                idleTicks++;
            } else {
                idleTicks = 0;
                lastProgressAt = System.nanoTime();
            }
            lastSettled = now;
        }
        long elapsed = lastProgressAt - started;
        long settledBeforeRelease = settled.sum();
        out.printf(
                "%n%d stuck ids hold up %,d messages in %,d lanes; releasing them%n",
                TYPES.size(), queued(dispatchers), laneCount(dispatchers));
        releaseStuck.tryEmitEmpty();
        Flux.fromIterable(dispatchers)
                .flatMap(AggregateDispatcher::stopGracefully)
                .then()
                .block(Duration.ofSeconds(30));
        schedulers.stop();
        return report(
                out, dispatchers, latency, violations.sum(), expected, settled.sum(), settledBeforeRelease, elapsed);
    }

    private Flux<MessageExchange<long[]>> source(
            NamedAggregate type, int count, ConcurrentHistogram latency, LongAdder settled) {
        return Flux.range(0, count).map(i -> {
            String id = idFor(i);
            long sequence = i / aggregates;
            return new DemoExchange(AggregateId.of(type, id), sequence, latency, settled);
        });
    }

    private String idFor(int i) {
        int n = i % aggregates;
        return n == 0 ? STUCK_ID : n == 1 ? POISON_ID : "id-" + n;
    }

    private long stuckCount(int perType) {
        return (perType + aggregates - 1) / aggregates;
    }

    private static Mono<Void> handle(
            MessageExchange<long[]> exchange,
            ConcurrentHashMap<String, AtomicLong> lastSeen,
            LongAdder violations,
            Sinks.Empty<Void> releaseStuck) {
        AggregateId id = exchange.aggregateId();
        long sequence = exchange.message()[0];
        Mono<Void> check = Mono.fromRunnable(() -> {
            long previous = lastSeen.computeIfAbsent(id.toString(), k -> new AtomicLong(-1))
                    .getAndSet(sequence);
            boolean afterParked = id.id().equals(POISON_ID) && sequence == 4;
            if (previous != sequence - 1 && !afterParked) {
                violations.increment();
            }
        });
        if (id.id().equals(STUCK_ID) && sequence == 0) {
            return releaseStuck.asMono().then(check);
        }
        if (id.id().equals(POISON_ID) && sequence == 3) {
            return Mono.error(new IllegalArgumentException("poison message " + id + "#" + sequence));
        }
        if (sequence % 1000 == 7 && exchange.message()[1] == 0) {
            exchange.message()[1] = 1; // fails once, then succeeds on retry
            return Mono.error(new IllegalStateException("transient failure, retried"));
        }
        return check;
    }

    private static void progress(
            PrintWriter out, List<AggregateDispatcher<long[]>> dispatchers, long done, long expected, long started) {
        double seconds = (System.nanoTime() - started) / 1e9;
        out.printf(
                Locale.ROOT,
                "\r%,d / %,d settled  %,.0f msg/s  queued %,d   ",
                done,
                expected,
                done / Math.max(seconds, 1e-3),
                queued(dispatchers));
        out.flush();
    }

    private static long laneCount(List<AggregateDispatcher<long[]>> dispatchers) {
        return dispatchers.stream().mapToLong(d -> d.stats().lanes()).sum();
    }

    private static long queued(List<AggregateDispatcher<long[]>> dispatchers) {
        return dispatchers.stream().mapToLong(d -> d.stats().queued()).sum();
    }

    private int report(
            PrintWriter out,
            List<AggregateDispatcher<long[]>> dispatchers,
            ConcurrentHistogram latency,
            long violations,
            long expected,
            long settled,
            long settledBeforeRelease,
            long elapsedNanos) {
        out.printf(Locale.ROOT, "%nLanes demo (%s lanes, %,d ids per type)%n", strategy, aggregates);
        out.printf(
                Locale.ROOT,
                "throughput   %,.0f messages/s (%,d settled in %.2f s while the stuck ids held)%n",
                settledBeforeRelease / (elapsedNanos / 1e9),
                settledBeforeRelease,
                elapsedNanos / 1e9);
        out.printf(
                Locale.ROOT,
                "latency      p50 %,d us  p99 %,d us  p99.9 %,d us (admission to acknowledgement)%n",
                latency.getValueAtPercentile(50) / 1000,
                latency.getValueAtPercentile(99) / 1000,
                latency.getValueAtPercentile(99.9) / 1000);
        for (AggregateDispatcher<long[]> dispatcher : dispatchers) {
            DispatcherStats stats = dispatcher.stats();
            out.printf(
                    Locale.ROOT,
                    "%-16s handled %,d  retried %,d  parked %,d  rejected %,d  hottest %s%n",
                    dispatcher.namedAggregate(),
                    stats.handled(),
                    stats.retried(),
                    stats.parked(),
                    stats.rejected(),
                    stats.hottestIds().isEmpty()
                            ? "-"
                            : stats.hottestIds().get(0).id());
        }
        boolean ordered = violations == 0;
        boolean nothingLost = settled == expected;
        out.printf("invariant    per-id order   %s (%d violations)%n", ordered ? "PASS" : "FAIL", violations);
        out.printf(
                "invariant    nothing lost   %s (%,d of %,d settled)%n",
                nothingLost ? "PASS" : "FAIL", settled, expected);
        out.flush();
        return ordered && nothingLost ? 0 : 1;
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
