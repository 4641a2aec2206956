package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A sender waiting for {@code PROJECTED} is answered when the projection ran on another instance: two instances share
 * the broker, the store and the read model; the projection's partitions are split between them, and every command sent
 * from the first is answered at {@code PROJECTED}, also those whose events the second projected.
 */
class ProjectedAcrossInstancesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int ACCOUNTS = 24;

    @Test
    void aProjectedWaitEndsWhenTheProjectionRanOnAnotherInstance() {
        String run = "projected" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(4, (short) 1);
        EventStore store = EventStores.inMemory();
        ReadModel balances = new ReadModel();
        Instance sender = new Instance(options.withInstanceId("sender-" + run), store, balances);
        Instance other = new Instance(options.withInstanceId("other-" + run), store, balances);
        try {
            await().atMost(TIMEOUT)
                    .until(() -> !sender.consumer().assignment().isEmpty()
                            && !other.consumer().assignment().isEmpty()
                            && sender.consumer().assignment().size()
                                            + other.consumer().assignment().size()
                                    == 4);

            List<CommandResult> results = Flux.range(0, ACCOUNTS)
                    .flatMap(i -> sender.lanes
                            .gateway()
                            .send(Ledger.account("p" + i), new Ledger.Open("o" + i), WaitStage.PROJECTED))
                    .collectList()
                    .block(TIMEOUT);

            assertThat(results)
                    .hasSize(ACCOUNTS)
                    .allSatisfy(result -> assertThat(result.version()).isOne());
            assertThat(other.projected.get())
                    .as("streams the other instance projected for the sender")
                    .isPositive();
            assertThat(sender.projected.get() + other.projected.get()).isEqualTo(ACCOUNTS);
            for (int i = 0; i < ACCOUNTS; i++) {
                AggregateId account = Ledger.account("p" + i);
                assertThat(balances.rows.get(account)).isEqualTo(new ReadModel.Row(1, 0));
            }
        } finally {
            sender.lanes.stop();
            other.lanes.stop();
        }
    }

    /** One instance: its own connection, the shared store, and the projection "Balances" into the shared model. */
    private static final class Instance {
        final KafkaBuses kafka;
        final Lanes lanes;
        final AtomicInteger projected = new AtomicInteger();

        Instance(KafkaOptions options, EventStore store, ReadModel balances) {
            this.kafka = KafkaBuses.create(options);
            this.lanes = kafka.applyTo(Lanes.builder())
                    .aggregate(Ledger.definition())
                    .processor(EventProcessor.builder("Balances", ProcessorKind.PROJECTION)
                            .on(
                                    Ledger.ACCOUNT,
                                    Object.class,
                                    (event, context) -> Mono.fromRunnable(() -> {
                                        balances.apply(context.stream());
                                        projected.incrementAndGet();
                                    }))
                            .build())
                    .eventStore(store)
                    .commandTimeout(TIMEOUT)
                    .build()
                    .start(TIMEOUT);
        }

        KafkaConsumerComponent consumer() {
            return kafka.eventBus().consumer("Balances");
        }
    }
}
