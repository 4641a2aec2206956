package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;

/**
 * A partition <em>lost</em> while its owner's lane still runs one of its streams: the first instance holds a poison
 * stream of each of its two partitions in its lanes when a second instance joins; the first's consumer thread waits in
 * the revocation for its record (a long revoke timeout) beyond its {@code max.poll.interval.ms}, so Kafka drops it from
 * the group and gives both partitions to the second instance, which claims them and handles the two streams. When the
 * first instance's processor then fails on them, its parkings carry the epochs it was assigned with: the dead-letter
 * queue refuses them and stores nothing, and the streams are handed back unacknowledged, so the first instance settles
 * nothing more for them and the group's committed offsets stay the second instance's.
 */
class OwnershipLostWhileParkingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String NOTIFIER = "Notifier";
    private static final long POISON = 13;
    private static final int PARTITIONS = 2;

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private final String run = "fence" + UUID.randomUUID().toString().substring(0, 8);
    private final KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
            .withTopics(TopicNaming.perContext(run))
            .withTopicCreation(PARTITIONS, (short) 1);
    /** What the processor was called for on either instance: {@code instance aggregate vN}. */
    private final Queue<String> handled = new ConcurrentLinkedQueue<>();
    /** Completes when the first instance's processor may fail on the poison streams it holds. */
    private final CompletableFuture<Void> release = new CompletableFuture<>();

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    @AfterEach
    void close() throws Exception {
        release.complete(null);
        for (AutoCloseable resource = opened.poll(); resource != null; resource = opened.poll()) {
            resource.close();
        }
        assertThat(logs.lines(Level.ERROR)).isEmpty();
    }

    @Test
    void anInstanceThatLostItsPartitionWhileParkingParksNothingAndSettlesNothingForIt() throws Exception {
        String database = InstanceDatabases.fresh();
        // the first instance's consumer thread waits up to 20 s for a revoked partition's records, but Kafka drops it
        // from the group once it has not polled for 2 s
        Instance first = instance(
                "first",
                database,
                options.withRevokeTimeout(Duration.ofSeconds(20)).withClientProperty("max.poll.interval.ms", "2000"));
        Instance second = instance("second", database, options);
        List<AggregateId> poisoned = List.of(onPartition("poisoned", 0), onPartition("poisoned", 1));

        first.lanes.start(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> first.assigned() == PARTITIONS);
        for (AggregateId id : poisoned) {
            first.send(id, new Ledger.Open("ada"));
            first.send(id, new Ledger.Credit(POISON)); // v2: held in the first instance's lane until released
        }
        await().atMost(TIMEOUT).until(() -> poisoned.stream().allMatch(id -> handled.contains("first " + id + " v2")));

        second.lanes.start(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> second.assigned() == PARTITIONS);
        await().atMost(TIMEOUT).until(() -> poisoned.stream().allMatch(id -> handled.contains("second " + id + " v2")));
        Map<TopicPartition, Long> ends = endOffsets(poisoned.get(0));
        await().atMost(TIMEOUT).until(() -> committed().equals(ends)); // the second instance settled everything
        release.complete(null);

        await().atMost(TIMEOUT) // each poison stream parked, or handed back
                .until(() -> logs.lines(Level.WARN).stream()
                                .filter(line -> line.message().startsWith(NOTIFIER + " handed ")
                                        || line.message().startsWith("Parked a message for "))
                                .count()
                        == PARTITIONS);
        for (AggregateId id : poisoned) {
            assertThat(parked(second, id))
                    .as("nothing parked for %s by the instance that lost its partition", id)
                    .isEmpty();
        }
        assertThat(logs.lines(Level.WARN))
                .filteredOn(line -> line.message().startsWith(NOTIFIER + " handed "))
                .hasSize(PARTITIONS)
                .allSatisfy(line -> assertThat(line.message())
                        .contains(
                                "back to its source unacknowledged: PostgresDeadLetterQueue[",
                                "refused parking DomainEventStream[",
                                " for " + NOTIFIER + ": partition "
                                        + options.topics().group(NOTIFIER) + "/",
                                " is at epoch 2 (taken by " + run + "-second), this instance holds epoch 1"));
        assertThat(logs.lines(Level.WARN))
                .as("the first instance's consumer reads the records handed back no more")
                .anySatisfy(line -> assertThat(line.message())
                        .contains(run + "-first]: " + options.topics().events(Ledger.ACCOUNT) + "-")
                        .contains(" belongs to another instance now; nothing more of it is handed out here"));
        assertThat(committed())
                .as("the offsets the second instance committed: the first one settled nothing more")
                .isEqualTo(ends);
        assertThat(handled)
                .as("each poison stream handled once more, by the new owner, and never parked")
                .containsExactlyInAnyOrder(
                        "first " + poisoned.get(0) + " v1",
                        "first " + poisoned.get(0) + " v2",
                        "first " + poisoned.get(1) + " v1",
                        "first " + poisoned.get(1) + " v2",
                        "second " + poisoned.get(0) + " v2",
                        "second " + poisoned.get(1) + " v2");
    }

    /** An account whose records go to {@code partition} of the event topic (Kafka's default partitioner). */
    private static AggregateId onPartition(String prefix, int partition) {
        for (int i = 0; ; i++) {
            AggregateId id = Ledger.account(prefix + "-" + i);
            byte[] key = RecordCodec.key(id).getBytes(StandardCharsets.UTF_8);
            if (Utils.toPositive(Utils.murmur2(key)) % PARTITIONS == partition) {
                return id;
            }
        }
    }

    private Map<TopicPartition, Long> endOffsets(AggregateId any) throws Exception {
        String topic = options.topics().events(any.namedAggregate());
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int partition = 0; partition < PARTITIONS; partition++) {
            latest.put(new TopicPartition(topic, partition), OffsetSpec.latest());
        }
        try (Admin admin = admin()) {
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get().forEach((partition, info) -> ends.put(partition, info.offset()));
            return ends;
        }
    }

    private Map<TopicPartition, Long> committed() throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(
                            options.topics().group(NOTIFIER))
                    .partitionsToOffsetAndMetadata()
                    .get();
            committed.forEach((partition, offset) -> offsets.put(partition, offset.offset()));
            return offsets;
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()));
    }

    private Instance instance(String name, String database, KafkaOptions instanceOptions) {
        PostgresEventStore store = InstanceDatabases.connect(database, name);
        opened.push(store);
        PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.open(store.dataSource());
        opened.push(queue);
        KafkaBuses kafka = KafkaBuses.create(instanceOptions.withInstanceId(run + "-" + name));
        Lanes lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .processor(EventProcessor.builder(NOTIFIER, ProcessorKind.HANDLER)
                        .on(
                                Ledger.ACCOUNT,
                                Object.class,
                                (event, context) -> Mono.defer(() -> {
                                    handled.add(name + " " + context.stream().aggregateId() + " v" + context.version());
                                    if (name.equals("first")
                                            && event instanceof Ledger.Credited credited
                                            && credited.amount() == POISON) {
                                        return Mono.fromFuture(release)
                                                .then(Mono.error(new IllegalStateException("poison")));
                                    }
                                    return Mono.empty();
                                }))
                        .build())
                .eventSettings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.NONE))
                .eventStore(store)
                .deadLetterQueue(queue)
                .commandTimeout(TIMEOUT)
                .build();
        Instance instance = new Instance(kafka, lanes);
        opened.push(instance);
        return instance;
    }

    private static List<DeadLetter> parked(Instance instance, AggregateId id) {
        return instance.lanes.deadLetters().list(NOTIFIER, id).block(TIMEOUT);
    }

    /** One instance: its Kafka connection and its runtime, not started yet. */
    private record Instance(KafkaBuses kafka, Lanes lanes) implements AutoCloseable {

        int assigned() {
            return kafka.eventBus().consumer(NOTIFIER).assignment().size();
        }

        void send(AggregateId id, Object command) {
            lanes.gateway().send(id, command, WaitStage.PROCESSED).block(TIMEOUT);
        }

        @Override
        public void close() {
            lanes.stop();
        }
    }
}
