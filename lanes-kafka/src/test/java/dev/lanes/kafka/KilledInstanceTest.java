package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * An instance that dies without committing (its consumers leave, nothing more is committed): its partitions are read
 * again by the survivor from the last commit. Every command it had handled is redelivered, recognised by its request
 * id and answered with what it stored (a debit that emptied an account is not refused the second time), and nothing is
 * applied twice; processors see its streams again only as redelivery, never a gap.
 */
class KilledInstanceTest {
    private static final Duration TIMEOUT = Duration.ofMinutes(2);
    private static final int PARTITIONS = 4;
    private static final int ACCOUNTS = 40;

    private final String run = "kill" + UUID.randomUUID().toString().substring(0, 8);
    private final String database = InstanceDatabases.fresh();
    private final KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
            .withTopics(TopicNaming.perContext(run))
            .withTopicCreation(PARTITIONS, (short) 1);
    private final ReadModel balances = new ReadModel();
    private final ReadModel audit = new ReadModel();
    private final PostgresEventStore survivorStore = InstanceDatabases.connect(database, "survivor");
    private final PostgresEventStore victimStore = InstanceDatabases.connect(database, "victim");
    private final KafkaNode survivor =
            new KafkaNode(run + "-survivor", options, survivorStore, balances, audit).start();
    // never commits on its own: everything it handles is uncommitted when it dies
    private final KafkaNode victim = new KafkaNode(
                    run + "-victim", options.withCommitInterval(Duration.ofHours(1)), victimStore, balances, audit)
            .start();

    @AfterEach
    void close() {
        survivor.close();
        victim.close();
        survivorStore.close();
        victimStore.close();
    }

    @Test
    void aKilledInstancesCommandsAreRedeliveredAndAnsweredFromTheStoreNeverAppliedTwice() {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> {
            Set<TopicPartition> owned =
                    new HashSet<>(survivor.commandBus.consumer().assignment());
            Set<TopicPartition> victims = victim.commandBus.consumer().assignment();
            owned.addAll(victims);
            return !victims.isEmpty() && owned.size() == PARTITIONS;
        });
        Flux.range(0, ACCOUNTS)
                .flatMap(i -> survivor.gateway.send(account(i), new Ledger.Open("o" + i), WaitStage.PROCESSED))
                .blockLast(TIMEOUT);
        List<CommandResult> credits = Flux.range(0, ACCOUNTS)
                .flatMap(i -> survivor.gateway.send(
                        CommandMessage.of(account(i), new Ledger.Credit(100), "credit-" + i), WaitStage.PROCESSED))
                .collectList()
                .block(TIMEOUT);
        // a debit of the whole balance: decided again, it would be refused
        List<CommandResult> debits = Flux.range(0, ACCOUNTS)
                .flatMap(i -> survivor.gateway.send(
                        CommandMessage.of(account(i), new Ledger.Debit(100), "debit-" + i), WaitStage.PROCESSED))
                .collectList()
                .block(TIMEOUT);
        assertThat(credits).hasSize(ACCOUNTS);
        assertThat(debits).hasSize(ACCOUNTS);
        long handledByVictim = handled(victim);
        assertThat(handledByVictim).as("the victim handled its share").isPositive();
        long storedBefore = streams();
        long handledBefore = handled(survivor);

        victim.kill();

        Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> survivor.commandBus.consumer().assignment().size() == PARTITIONS);
        Awaitility.await()
                .atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(handled(survivor) - handledBefore)
                        .as("the victim's uncommitted commands are handled again by the survivor")
                        .isGreaterThanOrEqualTo(handledByVictim));
        assertThat(parked(survivor))
                .as("no redelivered command refused or parked")
                .isZero();
        assertThat(streams()).as("nothing applied twice").isEqualTo(storedBefore);
        for (int i = 0; i < ACCOUNTS; i++) {
            List<DomainEventStream> streams =
                    survivorStore.load(account(i), 1).collectList().block(TIMEOUT);
            assertThat(streams).extracting(DomainEventStream::version).containsExactly(1, 2, 3);
            assertThat(streams).extracting(DomainEventStream::requestId).contains("credit-" + i, "debit-" + i);
        }
        Awaitility.await()
                .atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(audit.redelivered.get())
                        .as("the republished streams reach the processors as redeliveries")
                        .isPositive());
        assertThat(balances.violations).isEmpty();
        assertThat(audit.violations).isEmpty();
        assertThat(balances.rows.values())
                .allSatisfy(row -> assertThat(row.balance()).isZero());
    }

    private long streams() {
        long count = 0;
        for (int i = 0; i < ACCOUNTS; i++) {
            count += survivorStore.load(account(i), 1).count().block(TIMEOUT);
        }
        return count;
    }

    private static long handled(KafkaNode node) {
        return node.commands.dispatchers().stream()
                .map(AggregateDispatcher::stats)
                .mapToLong(stats -> stats.handled())
                .sum();
    }

    private static long parked(KafkaNode node) {
        return node.commands.dispatchers().stream()
                .map(AggregateDispatcher::stats)
                .mapToLong(stats -> stats.parked())
                .sum();
    }

    private static AggregateId account(int i) {
        return Ledger.account("acc-" + i);
    }
}
