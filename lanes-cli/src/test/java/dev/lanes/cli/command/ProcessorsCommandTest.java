package dev.lanes.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.cli.Cli;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.eventsourcing.SegmentCheckpoint;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.testsupport.TestPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code lanes processors list|pause|resume|reset|seek} against a real PostgreSQL (embedded) while a tracking processor
 * of 4 segments runs on it in this JVM: the CLI writes to the checkpoint store, the running instance acts.
 */
class ProcessorsCommandTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int SEGMENTS = 4;
    private static final int AGGREGATES = 100;
    private static final String DATABASE = MigratedDatabase.create();

    private final NamedAggregate counter = NamedAggregate.of("cli-" + UUID.randomUUID(), "counter");
    private final String name = "Counters-" + UUID.randomUUID();
    private TrackingProcessor tracking;
    /** The projection: per aggregate the versions handled since its segment was last reset. */
    private final Map<String, List<Integer>> projection = new ConcurrentHashMap<>();

    private final List<Segment> resets = new CopyOnWriteArrayList<>();
    private final int[] versions = new int[AGGREGATES];
    private PostgresEventStore store;
    private LanesRuntime runtime;

    @BeforeEach
    void start() {
        store = PostgresEventStore.connect(DATABASE, TestPostgres.USER, null, PostgresOptions.DEFAULT.withPoolSize(8));
        EventProcessor processor = EventProcessor.builder(name, ProcessorKind.PROJECTION)
                .on(
                        counter,
                        Deposited.class,
                        (event, context) -> Mono.fromRunnable(() -> projection
                                .computeIfAbsent(context.aggregateId().id(), id -> new CopyOnWriteArrayList<>())
                                .add(context.version())))
                .build();
        tracking = TrackingProcessor.builder(processor, store, store.checkpointStore())
                .settings(TrackingSettings.DEFAULT
                        .withPollInterval(Duration.ofMillis(20))
                        .withCheckpointInterval(Duration.ofMillis(20))
                        .withSegments(SEGMENTS))
                .owner("instance-1")
                .onSegmentReset(segment -> Mono.fromRunnable(() -> {
                    projection.keySet().removeIf(id -> segment.contains(AggregateId.of(counter, id)));
                    resets.add(segment);
                }))
                .build();
        runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(30), Duration.ofMillis(50));
        append(3);
        runtime.start().block(WAIT);
        awaitReplay();
    }

    @AfterEach
    void stop() {
        runtime.shutdown().block(WAIT);
        store.close();
    }

    private synchronized void append(int rounds) {
        for (int round = 0; round < rounds; round++) {
            Flux.range(0, AGGREGATES)
                    .flatMap(aggregate -> store.append(stream(aggregate, ++versions[aggregate])), 16)
                    .blockLast(WAIT);
        }
    }

    private synchronized int appendedRounds() {
        return versions[0];
    }

    private DomainEventStream stream(int aggregate, int version) {
        AggregateId id = AggregateId.of(counter, "c-" + aggregate);
        return DomainEventStream.of(CommandMessage.of(id, new Deposit(1, "")), version, List.of(new Deposited(1, "")));
    }

    private synchronized List<Integer> replay(int aggregate) {
        return IntStream.rangeClosed(1, versions[aggregate]).boxed().toList();
    }

    /** Every aggregate's versions handled exactly once each, in order: what a replay of the store gives. */
    private void awaitReplay() {
        await().atMost(WAIT).untilAsserted(() -> {
            for (int aggregate = 0; aggregate < AGGREGATES; aggregate++) {
                assertThat(projection.get("c-" + aggregate))
                        .as("c-" + aggregate)
                        .isEqualTo(replay(aggregate));
            }
        });
    }

    private Cli.Result cli(String... args) {
        List<String> all = new ArrayList<>(List.of("processors"));
        all.addAll(List.of(args));
        all.addAll(List.of("--jdbc-url", DATABASE));
        return Cli.run(all.toArray(String[]::new));
    }

    private List<SegmentCheckpoint> rows() {
        return store.checkpointStore().checkpoints(name).block(WAIT);
    }

    @Test
    void listShowsEverySegmentWithItsOwnerCheckpointAndLag() {
        Cli.Result list = cli("list", "--processor", name);

        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out().lines().toList())
                .hasSize(SEGMENTS)
                .allSatisfy(line -> assertThat(line)
                        .startsWith(name + " ")
                        .contains(" RUNNING owner=instance-1 ")
                        .contains("lag=0 streams, 0 s, parked=0"));
        assertThat(list.out().lines()).anySatisfy(line -> assertThat(line).startsWith(name + " 3/4 "));
    }

    @Test
    void aPausedSegmentReadsNothingUntilResumedWhileTheOthersGoOn() {
        Cli.Result pause = cli("pause", "--processor", name, "--segment", "1");
        assertThat(pause.exitCode()).as(pause.err()).isZero();
        assertThat(pause.out()).contains("Paused " + name + " segment(s) [1]");
        await().atMost(WAIT)
                .until(() ->
                        cli("list", "--processor", name, "--segment", "1").out().contains(" PAUSED owner=instance-1 "));
        tracking.operationsSeen().block(WAIT); // the owner acts at its next tick: from then on it reads nothing of it
        Segment paused = new Segment(1, SEGMENTS);
        List<String> inPaused = IntStream.range(0, AGGREGATES)
                .mapToObj(aggregate -> "c-" + aggregate)
                .filter(id -> paused.contains(AggregateId.of(counter, id)))
                .toList();
        assertThat(inPaused).isNotEmpty();

        append(1);

        await().atMost(WAIT).untilAsserted(() -> {
            for (int aggregate = 0; aggregate < AGGREGATES; aggregate++) {
                String id = "c-" + aggregate;
                assertThat(projection.get(id)).as(id).hasSize(inPaused.contains(id) ? 3 : 4);
            }
        });
        assertThat(cli("list", "--processor", name, "--segment", "1").out())
                .as("its lag while paused")
                .contains(" PAUSED ")
                .contains("lag=" + inPaused.size() + " streams");

        Cli.Result resume = cli("resume", "--processor", name, "--segment", "1");
        assertThat(resume.exitCode()).as(resume.err()).isZero();
        awaitReplay();
    }

    @Test
    void aResetUnderLoadRunsEachSegmentsHookAndEndsEqualToAReplay() throws InterruptedException {
        AtomicBoolean loading = new AtomicBoolean(true);
        Thread load = new Thread(() -> {
            while (loading.get()) {
                append(1);
            }
        });
        load.start();
        try {
            await().atMost(WAIT).until(() -> appendedRounds() >= 5);
            Cli.Result reset = cli("reset", "--processor", name);
            assertThat(reset.exitCode()).as(reset.err()).isZero();
            assertThat(reset.out()).contains("segment(s) [0, 1, 2, 3]");
            await().atMost(WAIT).until(() -> rows().stream().allMatch(row -> row.requestedCheckpoint() == null));
            assertThat(appendedRounds())
                    .as("streams appended while the segments reset")
                    .isGreaterThan(5);
        } finally {
            loading.set(false);
            load.join(WAIT.toMillis());
        }
        awaitReplay();
        assertThat(resets).as("one reset hook per segment").hasSize(SEGMENTS).doesNotHaveDuplicates();
    }

    @Test
    void aSeekReadsTheSegmentAgainFromThePositionAfterItsHook() {
        long position = rows().get(2).position(); // the last stream of segment 2 handled: read it again
        Cli.Result seek = cli("seek", "--processor", name, "--segment", "2", "--position", String.valueOf(position));
        assertThat(seek.exitCode()).as(seek.err()).isZero();

        await().atMost(WAIT).until(() -> resets.contains(new Segment(2, SEGMENTS)));
        await().atMost(WAIT).until(() -> rows().get(2).position() == position);
        Segment two = new Segment(2, SEGMENTS);
        await().atMost(WAIT)
                .untilAsserted(() -> assertThat(projection.keySet())
                        .as("of segment 2, only the aggregate of the stream at the position was read again")
                        .filteredOn(id -> two.contains(AggregateId.of(counter, id)))
                        .hasSize(1));
    }

    @Test
    void anUnknownProcessorOrSegmentIsABadOptionNamingIt() {
        Cli.Result unknown = cli("pause", "--processor", "Nope");
        Cli.Result segment = cli("pause", "--processor", name, "--segment", "4");
        Cli.Result missing = cli("reset");

        assertThat(unknown.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(unknown.err()).contains("No tracking processor named Nope").contains(name);
        assertThat(segment.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(segment.err()).contains("has no segment 4 (it has 4)");
        assertThat(missing.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(missing.err()).contains("--processor");
        assertThat(rows()).noneMatch(SegmentCheckpoint::paused);
    }
}
