package dev.lanes.postgres;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.runtime.LanesRuntime;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Rebuild speed of a tracking projection on PostgreSQL, in streams per second, against a raw {@code SELECT} scan of the
 * same rows in the same run: one instance with one segment (as before segments), and three instances (three runtimes
 * in this JVM) sharing 8 segments; medians of 3 rounds, each round on a new processor name (fresh checkpoints). The
 * handler does nothing but record the stream, so this measures reading, decoding and dispatch. Excluded from the
 * default build (tag {@code benchmark}); run with
 *
 * <pre>
 * mvn -q -pl lanes-postgres -am verify -Dtest=RebuildThroughput -Dsurefire.excludedGroups= \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Djacoco.skip=true [-Dlanes.rebuild.streams=100000]
 * </pre>
 *
 * The table goes to stdout and is appended to {@code lanes-postgres/target/rebuild-throughput.txt}.
 */
@Tag("benchmark")
class RebuildThroughput {
    private static final int AGGREGATES = 10_000;
    private static final int STREAMS = Integer.getInteger("lanes.rebuild.streams", 100_000);
    private static final int ROUNDS = 3;
    private static final Duration WAIT = Duration.ofMinutes(10);
    private static final String SCAN = "SELECT version, stream_id, request_id, command_id, created_at,"
            + " headers::text, events::text, position, tenant_id, context_name, aggregate_name, aggregate_id"
            + " FROM lanes_event_streams WHERE context_name = ? AND aggregate_name = ? ORDER BY position";

    private final PostgresEventStore store = TestDatabase.store();
    private final NamedAggregate counter = NamedAggregate.of("rebuild-" + UUID.randomUUID(), "counter");

    @Test
    void rebuildWithOneAndThreeInstancesAgainstARawScan() throws IOException {
        append();
        List<Double> scans = new ArrayList<>();
        List<Double> ones = new ArrayList<>();
        List<Double> threes = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            scans.add(timed(this::scan));
            ones.add(timed(() -> rebuild(1, 1)));
            threes.add(timed(() -> rebuild(3, 8)));
        }
        String table = String.format(
                Locale.ROOT,
                "rebuild of %,d streams (%,d aggregates), medians of %d, streams/s:%n"
                        + "  raw SELECT scan           %,10.0f  %s%n"
                        + "  1 instance, 1 segment     %,10.0f  %s  (%.0f %% of the scan)%n"
                        + "  3 instances, 8 segments   %,10.0f  %s  (%.2fx one instance)%n",
                STREAMS,
                AGGREGATES,
                ROUNDS,
                median(scans),
                rates(scans),
                median(ones),
                rates(ones),
                100 * median(ones) / median(scans),
                median(threes),
                rates(threes),
                median(threes) / median(ones));
        System.out.print(table);
        Files.writeString(
                Path.of("target", "rebuild-throughput.txt"),
                table,
                StandardCharsets.UTF_8,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private void append() {
        int versions = STREAMS / AGGREGATES;
        Flux.range(0, AGGREGATES)
                .flatMap(
                        aggregate ->
                                Flux.range(1, versions).concatMap(version -> store.append(stream(aggregate, version))),
                        64)
                .blockLast(WAIT);
    }

    private DomainEventStream stream(int aggregate, int version) {
        AggregateId id = AggregateId.of(counter, "c-" + aggregate);
        return DomainEventStream.of(CommandMessage.of(id, new Deposit(1, "")), version, List.of(new Deposited(1, "")));
    }

    /** Streams per second of {@code run}, which returns how many it went through. */
    private static double timed(Supplier<Integer> run) {
        long start = System.nanoTime();
        int streams = run.get();
        if (streams != STREAMS) {
            throw new IllegalStateException("went through " + streams + " streams, not " + STREAMS);
        }
        return streams / ((System.nanoTime() - start) / 1e9);
    }

    /** Every row of the type, every column read as the store reads it, through one cursor. */
    private int scan() {
        try (Connection connection = store.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement query = connection.prepareStatement(SCAN)) {
                query.setFetchSize(1_000);
                query.setString(1, counter.contextName());
                query.setString(2, counter.aggregateName());
                int rows = 0;
                long sink = 0;
                try (ResultSet result = query.executeQuery()) {
                    while (result.next()) {
                        for (int column = 1; column <= 12; column++) {
                            String value = result.getString(column);
                            sink += value == null ? 0 : value.length();
                        }
                        rows++;
                    }
                }
                connection.commit();
                return sink > 0 ? rows : 0;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A fresh processor rebuilt by {@code instances} runtimes over {@code segments}; the streams it handled. */
    private int rebuild(int instances, int segments) {
        String name = "Rebuild-" + UUID.randomUUID();
        Set<String> handled = ConcurrentHashMap.newKeySet();
        List<LanesRuntime> runtimes = new ArrayList<>();
        for (int i = 0; i < instances; i++) {
            EventProcessor processor = EventProcessor.builder(name, ProcessorKind.PROJECTION)
                    .on(
                            counter,
                            Deposited.class,
                            (event, context) -> Mono.fromRunnable(
                                    () -> handled.add(context.aggregateId().id() + " v" + context.version())))
                    .build();
            TrackingProcessor tracking = TrackingProcessor.builder(processor, store, store.checkpointStore())
                    .settings(TrackingSettings.DEFAULT
                            .withPollInterval(Duration.ofMillis(20))
                            .withSegments(segments))
                    .owner("instance-" + i)
                    .build();
            runtimes.add(new LanesRuntime(List.of(tracking), Duration.ofSeconds(30), Duration.ZERO));
        }
        runtimes.forEach(runtime -> runtime.start().block(WAIT));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (handled.size() < STREAMS && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int done = handled.size();
        runtimes.forEach(runtime -> runtime.shutdown().block(WAIT));
        return done;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static String rates(List<Double> values) {
        return values.stream()
                .map(value -> String.format(Locale.ROOT, "%,.0f", value))
                .toList()
                .toString();
    }
}
