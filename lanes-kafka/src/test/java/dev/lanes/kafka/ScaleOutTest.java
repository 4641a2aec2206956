package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Three instances share one PostgreSQL store and one Kafka cluster. While commands flow, one instance stops and a new
 * one starts: every acknowledged command is stored exactly once, each aggregate's versions are gapless, every processor
 * sees each aggregate's streams in version order (duplicates only as redelivery, no gap), and the projection equals a
 * replay of the store, with the money conserved.
 */
class ScaleOutTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(3);
    private static final int PARTITIONS = 6;

    private final String run = "scale" + UUID.randomUUID().toString().substring(0, 8);
    private final String database = InstanceDatabases.fresh();
    private KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
            .withTopics(TopicNaming.perContext(run))
            .withTopicCreation(PARTITIONS, (short) 1);
    private final ReadModel balances = new ReadModel();
    private final ReadModel audit = new ReadModel();
    // the fourth instance is made on another thread, mid-run
    private final List<KafkaNode> nodes = new CopyOnWriteArrayList<>();
    private final List<PostgresEventStore> stores = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() {
        nodes.forEach(KafkaNode::close);
        stores.forEach(PostgresEventStore::close);
    }

    private KafkaNode node(String name) {
        PostgresEventStore store = InstanceDatabases.connect(database, name);
        stores.add(store);
        KafkaNode node = new KafkaNode(run + "-" + name, options, store, balances, audit);
        nodes.add(node); // closed after the test even if its start fails
        return node.start();
    }

    /** The default size: small enough for the default build on two shared cores (10,000 took over 2 minutes). */
    @Test
    void threeThousandCommandsOverAHundredAggregatesWhileOneInstanceStopsAndAnotherStarts() {
        scaleOut(3_000, 100);
    }

    /**
     * The same on Kafka's classic group protocol (client-side assignment, cooperative rebalancing), which the guides
     * offer for older brokers and for a lower CPU cost per record than the {@code consumer} protocol's client.
     */
    @Test
    void theSameOnTheClassicGroupProtocolWithCooperativeRebalancing() {
        options = options.withClientProperty(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic")
                .withClientProperty(
                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        scaleOut(3_000, 100);
    }

    @Test
    @Tag("stress")
    void aHundredThousandCommandsOverAThousandAggregatesWhileOneInstanceStopsAndAnotherStarts() {
        scaleOut(100_000, 1_000);
    }

    private void scaleOut(int commands, int accounts) {
        KafkaNode first = node("first");
        KafkaNode second = node("second");
        KafkaNode third = node("third");
        awaitShared(List.of(first, second, third));
        Flux.range(0, accounts)
                .flatMap(i -> first.gateway.send(account(i), new Ledger.Open("o" + i), WaitStage.PROCESSED), 64)
                .blockLast(TIMEOUT);

        AtomicInteger acknowledged = new AtomicInteger();
        AtomicBoolean midRun = new AtomicBoolean();
        Mono<ShutdownReport> secondStops = Mono.defer(() -> Mono.justOrEmpty(second.stop()))
                .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
        // starting blocks: not on the thread that delivers a result (a non-blocking Reactor thread, maybe)
        Mono<KafkaNode> fourthJoins = Mono.fromCallable(() -> node("fourth"))
                .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic())
                .cache();
        Map<String, Long> sent = new HashMap<>();
        for (int i = 0; i < commands; i++) {
            sent.put(requestId(i), amount(i));
        }
        Flux<CommandResult> load = Flux.merge(
                        credits(first.gateway, 0, commands, accounts, acknowledged),
                        credits(third.gateway, 1, commands, accounts, acknowledged))
                .doOnNext(result -> {
                    // acknowledgements come from two gateways at once: the count may pass a third between two
                    // results here, so the trigger is "at least a third, once", not "exactly a third"
                    if (acknowledged.get() >= commands / 3 && midRun.compareAndSet(false, true)) {
                        // mid-run: the second instance leaves (gracefully) while a fourth joins
                        secondStops.subscribe();
                        fourthJoins.subscribe();
                    }
                });
        List<CommandResult> results = load.collectList().block(TIMEOUT);

        assertThat(results).hasSize(commands);
        assertThat(results).allSatisfy(result -> assertThat(result.stage()).isEqualTo(WaitStage.PROCESSED));
        KafkaNode fourth = fourthJoins.block(TIMEOUT);
        Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> !fourth.commandBus.consumer().assignment().isEmpty());
        assertStoredOnceGaplessAndProjected(sent, accounts);
        System.out.printf(
                "scale-out %d commands over %d aggregates: redelivered to the projection %d, to the audit %d%n",
                commands, accounts, balances.redelivered.get(), audit.redelivered.get());
    }

    private void assertStoredOnceGaplessAndProjected(Map<String, Long> sent, int accounts) {
        PostgresEventStore reader = stores.get(0);
        Set<String> stored = new HashSet<>();
        long money = 0;
        Map<AggregateId, Integer> versions = new HashMap<>();
        for (int i = 0; i < accounts; i++) {
            AggregateId id = account(i);
            List<DomainEventStream> streams = reader.load(id, 1).collectList().block(TIMEOUT);
            assertThat(streams).isNotNull();
            for (int v = 0; v < streams.size(); v++) {
                DomainEventStream stream = streams.get(v);
                assertThat(stream.version()).as("gapless versions of %s", id).isEqualTo(v + 1);
                assertThat(stored.add(stream.requestId()))
                        .as("stored once: %s", stream)
                        .isTrue();
                for (Object event : stream.payloads()) {
                    if (event instanceof Ledger.Credited credited) {
                        money += credited.amount();
                        assertThat(sent.get(stream.requestId())).isEqualTo(credited.amount());
                    }
                }
            }
            versions.put(id, streams.size());
        }
        assertThat(stored).containsAll(sent.keySet());
        assertThat(stored).hasSize(sent.size() + accounts);
        assertThat(money)
                .as("money conserved")
                .isEqualTo(sent.values().stream().mapToLong(Long::longValue).sum());
        Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            for (Map.Entry<AggregateId, Integer> entry : versions.entrySet()) {
                assertThat(balances.rows.get(entry.getKey()))
                        .as("projection of %s", entry.getKey())
                        .isNotNull()
                        .extracting(ReadModel.Row::version)
                        .isEqualTo(entry.getValue());
                assertThat(audit.rows.get(entry.getKey()).version()).isEqualTo(entry.getValue());
            }
        });
        long projected = balances.rows.values().stream()
                .mapToLong(ReadModel.Row::balance)
                .sum();
        assertThat(projected).as("projection = replay").isEqualTo(money);
        assertThat(balances.violations).as("order in the projection").isEmpty();
        assertThat(audit.violations).as("order in the audit handler").isEmpty();
    }

    private static Flux<CommandResult> credits(
            CommandGateway gateway, int parity, int commands, int accounts, AtomicInteger acknowledged) {
        return Flux.range(0, commands)
                .filter(i -> i % 2 == parity)
                .flatMap(
                        i -> gateway.send(
                                        CommandMessage.of(
                                                account(i % accounts), new Ledger.Credit(amount(i)), requestId(i)),
                                        WaitStage.PROCESSED,
                                        Duration.ofSeconds(90))
                                .doOnNext(result -> acknowledged.incrementAndGet()),
                        256);
    }

    private static void awaitShared(List<KafkaNode> group) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            Set<TopicPartition> owned = new HashSet<>();
            for (KafkaNode node : group) {
                Set<TopicPartition> assignment = node.commandBus.consumer().assignment();
                if (assignment.isEmpty()) {
                    return false;
                }
                owned.addAll(assignment);
            }
            return owned.size() == PARTITIONS;
        });
    }

    private static AggregateId account(int i) {
        return Ledger.account("acc-" + i);
    }

    private static String requestId(int i) {
        return "credit-" + i;
    }

    private static long amount(int i) {
        return 1 + (i % 97);
    }
}
