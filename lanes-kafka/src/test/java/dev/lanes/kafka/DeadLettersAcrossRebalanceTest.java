package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;

/**
 * A processor's dead-letter sequence parked on one instance holds its aggregate's later streams on the instance its
 * partition moves to: both instances open their {@link PostgresDeadLetterQueue} on one database at start, the first
 * parks an aggregate's poison stream, then leaves the group; the second, whose queue was loaded before that, reloads
 * it as it is assigned the partition, so the aggregate's next stream is parked behind the head instead of being handled
 * ahead of it, while other aggregates flow.
 */
class DeadLettersAcrossRebalanceTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String NOTIFIER = "Notifier";
    private static final long POISON = 13;

    /** The sequencer's warnings, and the Kafka consumers' notes on assignments; read and checked after each test. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private final String run = "dlq" + UUID.randomUUID().toString().substring(0, 8);
    // one partition per topic: whatever the first instance owns, the second takes over when it leaves
    private final KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
            .withTopics(TopicNaming.perContext(run))
            .withTopicCreation(1, (short) 1);
    /** What the processor was called for on either instance: {@code instance aggregate vN}. */
    private final Queue<String> handled = new ConcurrentLinkedQueue<>();

    /** Closed in reverse order after each test: instances before their queues and stores. */
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource = opened.poll(); resource != null; resource = opened.poll()) {
            resource.close();
        }
        assertThat(logs.lines(Level.ERROR)).isEmpty();
    }

    @Test
    void theInstanceThatTakesOverAPartitionParksTheLaterStreamsOfAnAggregateParkedBeforeItOwnedIt() {
        String database = InstanceDatabases.fresh();
        Instance first = instance("first", database);
        Instance second = instance("second", database); // its parked set is loaded now, before anything is parked
        AggregateId poisoned = Ledger.account("poisoned");
        AggregateId healthy = Ledger.account("healthy");

        first.lanes.start(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> first.owns());
        first.send(poisoned, new Ledger.Open("ada"));
        first.send(poisoned, new Ledger.Credit(POISON)); // v2 fails: the head of a sequence, stored, then committed
        assertThat(awaitParked(first, poisoned, 1))
                .extracting(letter -> letter.stream().version())
                .containsExactly(2);

        second.lanes.start(TIMEOUT);
        first.stop(); // revokes the partition: drained and committed before the second is assigned it
        await().atMost(TIMEOUT).until(() -> second.owns());
        second.send(poisoned, new Ledger.Credit(5));
        second.send(healthy, new Ledger.Open("bob"));
        second.send(healthy, new Ledger.Credit(5));

        String handledAhead = "second " + poisoned + " v3";
        await().atMost(TIMEOUT)
                .until(() -> handled.contains(handledAhead)
                        || parked(second, poisoned).size() == 2);
        assertThat(handled)
                .as("v3 handled on the instance that took the partition over, ahead of the parked v2")
                .doesNotContain(handledAhead);
        assertThat(parked(second, poisoned))
                .as("v3 parked behind the head")
                .extracting(letter -> letter.stream().version())
                .containsExactly(2, 3);
        await().atMost(TIMEOUT).until(() -> handled.contains("second " + healthy + " v2"));
        assertThat(handled)
                .as("what the processor was called for")
                .containsExactly(
                        "first " + poisoned + " v1",
                        "first " + poisoned + " v2",
                        "second " + healthy + " v1",
                        "second " + healthy + " v2");
        assertThat(logs.lines(Level.WARN))
                .anySatisfy(line -> assertThat(line.message()).startsWith("Parked a message for " + poisoned));
    }

    /**
     * The reload of the dead letters is such a hook: a partition whose records were handed out without it could run an
     * aggregate's streams ahead of its parked head. So the partitions wait, paused, and the hooks run again until they
     * pass.
     */
    @Test
    void aHookThatFailsAsPartitionsAreAssignedHoldsTheirRecordsUntilItRunsAgainAndPasses() {
        Instance only = instance("only", EventStores.inMemory(), null);
        AtomicBoolean databaseDown = new AtomicBoolean(true);
        AtomicInteger failures = new AtomicInteger();
        only.kafka.eventBus().onAssignment(new Runnable() {
            @Override
            public void run() {
                if (databaseDown.get()) {
                    failures.incrementAndGet();
                    throw new IllegalStateException("the database is down");
                }
            }

            @Override
            public String toString() {
                return "a failing hook";
            }
        });
        AggregateId account = Ledger.account("assigned");

        only.lanes.start(TIMEOUT);
        only.send(account, new Ledger.Open("ada")); // answered once its stream was stored and published
        int failedBeforeTheStream = failures.get();
        await().atMost(TIMEOUT).until(() -> failures.get() >= failedBeforeTheStream + 2); // the hooks ran again, twice

        assertThat(handled).as("nothing handed out while the hook fails").isEmpty();
        assertThat(only.kafka.eventBus().consumer(NOTIFIER).pausedPartitions()).hasSize(1);
        databaseDown.set(false);
        await().atMost(TIMEOUT).until(() -> handled.contains("only " + account + " v1"));
        assertThat(logs.lines(Level.WARN))
                .anySatisfy(line -> assertThat(line.message())
                        .contains(
                                "KafkaEventConsumer[",
                                run + "-only",
                                ": a failing hook failed before the records of [",
                                "-0]",
                                "they are held, and the hooks run again in ",
                                "java.lang.IllegalStateException: the database is down"));
        assertThat(logs.lines(Level.INFO))
                .anySatisfy(line -> assertThat(line.message()).contains(": the assignment hooks ran; handing out"));
    }

    private Instance instance(String name, String database) {
        PostgresEventStore store = InstanceDatabases.connect(database, name);
        opened.push(store);
        PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.open(store.dataSource());
        opened.push(queue);
        return instance(name, store, queue);
    }

    private Instance instance(String name, EventStore store, @Nullable PostgresDeadLetterQueue queue) {
        KafkaBuses kafka = KafkaBuses.create(options.withInstanceId(run + "-" + name));
        Lanes.Builder builder = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .processor(EventProcessor.builder(NOTIFIER, ProcessorKind.HANDLER)
                        .on(
                                Ledger.ACCOUNT,
                                Object.class,
                                (event, context) -> Mono.fromRunnable(() -> {
                                    handled.add(name + " " + context.stream().aggregateId() + " v" + context.version());
                                    if (event instanceof Ledger.Credited credited && credited.amount() == POISON) {
                                        throw new IllegalStateException("poison");
                                    }
                                }))
                        .build())
                .eventSettings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.NONE))
                .eventStore(store)
                .commandTimeout(TIMEOUT);
        if (queue != null) {
            builder.deadLetterQueue(queue);
        }
        Instance instance = new Instance(kafka, builder.build());
        opened.push(instance);
        return instance;
    }

    private static List<DeadLetter> awaitParked(Instance instance, AggregateId id, int letters) {
        return await().atMost(TIMEOUT).until(() -> parked(instance, id), parked -> parked.size() == letters);
    }

    private static List<DeadLetter> parked(Instance instance, AggregateId id) {
        return instance.lanes.deadLetters().list(NOTIFIER, id).block(TIMEOUT);
    }

    /** One instance: its Kafka connection and its runtime, not started yet. */
    private record Instance(KafkaBuses kafka, Lanes lanes) implements AutoCloseable {

        boolean owns() {
            return kafka.eventBus().consumer(NOTIFIER).assignment().size() == 1;
        }

        void send(AggregateId id, Object command) {
            lanes.gateway().send(id, command, WaitStage.PROCESSED).block(TIMEOUT);
        }

        void stop() {
            lanes.stop();
        }

        @Override
        public void close() {
            lanes.stop();
        }
    }
}
