package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.runtime.ComponentReport;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A service wired by {@code Lanes.builder()} runs on Kafka once {@link KafkaBuses#applyTo} is given the builder. */
class KafkaLanesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void aServiceWiredByTheBuilderProcessesThroughKafkaProjectsAndStopsInOrder() {
        String run = "lanes" + UUID.randomUUID().toString().substring(0, 8);
        KafkaBuses kafka = KafkaBuses.create(KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(2, (short) 1)
                .withInstanceId("builder-" + run));
        ReadModel balances = new ReadModel();
        EventStore store = EventStores.inMemory();
        Lanes lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .processor(balances(balances))
                .eventStore(store)
                .shutdownTimeout(TIMEOUT)
                .build()
                .start(TIMEOUT);
        try {
            AggregateId account = Ledger.account("builder-1");
            lanes.gateway()
                    .send(account, new Ledger.Open("ann"), WaitStage.PROCESSED)
                    .block(TIMEOUT);
            List<CommandResult> credits = Flux.range(1, 20)
                    .concatMap(i -> lanes.gateway().send(account, new Ledger.Credit(i), WaitStage.PROCESSED))
                    .collectList()
                    .block(TIMEOUT);

            assertThat(credits).extracting(CommandResult::version).containsExactlyElementsOf(versions(2, 21));
            Awaitility.await().atMost(TIMEOUT).until(() -> balances.applied.get() == 21);
            assertThat(balances.rows.get(account)).isEqualTo(new ReadModel.Row(21, 210));
            assertThat(balances.violations).isEmpty();
        } finally {
            lanes.stop();
        }

        ShutdownReport report = lanes.runtime().shutdown().block(TIMEOUT);
        assertThat(lanes.runtime().state()).isEqualTo(LanesRuntime.State.STOPPED);
        assertThat(report.components())
                .extracting(ComponentReport::name)
                .containsExactly(
                        "KafkaBuses[builder-" + run + "]",
                        "KafkaConsumers[builder-" + run + "]",
                        Lanes.COMMAND_DISPATCHER,
                        Lanes.EVENT_DISPATCHER,
                        "CommandDeadLetters");
    }

    @Test
    void oneConnectionIsWiredIntoOneServiceOnly() {
        KafkaBuses kafka = KafkaBuses.create(KafkaOptions.of("localhost:1").withInstanceId("twice"));
        kafka.applyTo(Lanes.builder());

        assertThatIllegalStateException()
                .isThrownBy(() -> kafka.applyTo(Lanes.builder()))
                .withMessageContaining("KafkaBuses[twice] is wired into a service already");
    }

    private static EventProcessor balances(ReadModel model) {
        return EventProcessor.builder("Balances", ProcessorKind.PROJECTION)
                .on(
                        Ledger.ACCOUNT,
                        Object.class,
                        (event, context) -> context.event().sequence() == 1
                                ? Mono.fromRunnable(() -> model.apply(context.stream()))
                                : Mono.empty())
                .build();
    }

    private static List<Integer> versions(int from, int to) {
        return Flux.range(from, to - from + 1).collectList().block();
    }
}
