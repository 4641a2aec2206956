package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** One instance, commands through Kafka to the store and back out to its processors. */
class KafkaEndToEndTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void commandsAreProcessedOnceAndEveryProcessorSeesEveryStreamInOrder() {
        String run = "e2e" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(4, (short) 1);
        ReadModel balances = new ReadModel();
        ReadModel audit = new ReadModel();
        EventStore store = EventStores.inMemory();
        long t0 = System.nanoTime();
        try (KafkaNode node = new KafkaNode("solo-" + run, options, store, balances, audit).start()) {
            System.out.printf("started in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            int accounts = 20;
            Flux.range(0, accounts)
                    .flatMap(i ->
                            node.gateway.send(Ledger.account("a" + i), new Ledger.Open("o" + i), WaitStage.PROCESSED))
                    .blockLast(TIMEOUT);
            List<CommandResult> results = Flux.range(0, 1_000)
                    .flatMap(
                            i -> node.gateway.send(
                                    Ledger.account("a" + (i % accounts)), new Ledger.Credit(i), WaitStage.PROCESSED),
                            128)
                    .collectList()
                    .block(TIMEOUT);

            assertThat(results)
                    .hasSize(1_000)
                    .allSatisfy(r -> assertThat(r.version()).isPositive());
            Awaitility.await()
                    .atMost(TIMEOUT)
                    .until(() -> balances.applied.get() == 1_020 && audit.applied.get() == 1_020);
            long total = 0;
            for (int i = 0; i < accounts; i++) {
                AggregateId id = Ledger.account("a" + i);
                assertThat(store.load(id, 1).count().block(TIMEOUT)).isEqualTo(51);
                total += balances.rows.get(id).balance();
            }
            assertThat(total).isEqualTo(999L * 1000 / 2);
            assertThat(balances.violations).isEmpty();
            assertThat(audit.violations).isEmpty();
            System.out.printf("projected in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        }
        System.out.printf("stopped in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }
}
