package dev.lanes.opentelemetry;

import static dev.lanes.opentelemetry.TraceTree.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.kafka.KafkaBuses;
import dev.lanes.kafka.KafkaOptions;
import dev.lanes.kafka.TopicNaming;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.testsupport.TestKafka;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Across two instances over Kafka (the in-process broker), each with a tracer provider of its own: a transfer sent on
 * one instance, whose saga and projection run only on the other, is one trace whose parents cross the instances
 * through the trace context in the Kafka records; each publication to Kafka is a produce span between the lane and
 * the processors.
 */
class KafkaTraceTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int PARTITIONS = 4;

    private final String run = "trace" + UUID.randomUUID().toString().substring(0, 8);
    private final KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
            .withTopics(TopicNaming.perContext(run))
            .withTopicCreation(PARTITIONS, (short) 1);
    private final EventStore store = EventStores.inMemory();
    private final List<Instance> instances = new ArrayList<>();

    /** One instance with its own Kafka connection and tracer provider; over the shared store. */
    private final class Instance {
        final InMemorySpanExporter exporter = InMemorySpanExporter.create();
        final SdkTracerProvider provider = SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                .build();
        final KafkaBuses kafka;
        final Lanes lanes;

        Instance(String name, boolean processors) {
            this.kafka = KafkaBuses.create(options.withInstanceId(name + "-" + run));
            Lanes.Builder builder = kafka.applyTo(Lanes.builder())
                    .aggregate(Bank.definition())
                    .eventStore(store)
                    .commandTimeout(TIMEOUT)
                    .tracing(LanesTracing.of(OpenTelemetrySdk.builder()
                            .setTracerProvider(provider)
                            .build()));
            if (processors) {
                builder.processor(TransferSaga::processor).processor(new BalanceProjection().processor());
            }
            this.lanes = builder.build().start(TIMEOUT);
            instances.add(this);
        }

        int commandPartitions() {
            return kafka.commandBus(lanes.commandResults())
                    .consumer()
                    .assignment()
                    .size();
        }

        List<SpanData> spans() {
            return exporter.getFinishedSpanItems();
        }
    }

    @AfterEach
    void stop() {
        instances.forEach(instance -> {
            instance.lanes.stop();
            instance.provider.close();
        });
    }

    @Test
    void aTransferSentOnOneInstanceAndHandledOnTheOtherIsOneTrace() {
        Instance sender = new Instance("sender", false);
        Instance handler = new Instance("handler", true);
        Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> sender.commandPartitions() > 0
                        && handler.commandPartitions() > 0
                        && sender.commandPartitions() + handler.commandPartitions() == PARTITIONS
                        && handler.kafka
                                        .eventBus()
                                        .consumer(TransferSaga.NAME)
                                        .assignment()
                                        .size()
                                == PARTITIONS
                        && handler.kafka
                                        .eventBus()
                                        .consumer(BalanceProjection.NAME)
                                        .assignment()
                                        .size()
                                == PARTITIONS);
        AggregateId from = Bank.account("from-" + run);
        AggregateId to = Bank.account("to-" + run);
        send(sender, CommandMessage.of(from, new OpenAccount("Ada")));
        send(sender, CommandMessage.of(to, new OpenAccount("Bob")));
        send(sender, CommandMessage.of(from, new Deposit(100)));
        CommandMessage withdraw = CommandMessage.of(from, new Withdraw(30, TransferSaga.debitReference(run, to.id())));

        send(sender, withdraw);

        // send, debit lane, its publication to Kafka, saga and projection of the debit; the saga's send, credit lane,
        // its
        // publication, saga and projection of the credit
        Awaitility.await()
                .atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(trace().names()).hasSize(10));
        TraceTree trace = trace();
        SpanData send = trace.root();
        assertThat(sender.spans()).as("the send is traced where it was sent").contains(send);
        SpanData debit = trace.child(send, "process bank.account", SpanKind.CONSUMER);
        SpanData produced = trace.child(debit, "publish bank.account", SpanKind.PRODUCER);
        assertThat(attribute(produced, "messaging.system")).isEqualTo("kafka");
        assertThat(attribute(produced, "messaging.operation.type")).isEqualTo("send");
        SpanData saga = trace.child(produced, "process " + TransferSaga.NAME, SpanKind.CONSUMER);
        trace.child(produced, "process " + BalanceProjection.NAME, SpanKind.CONSUMER);
        assertThat(handler.spans())
                .as("the saga runs on the other instance only")
                .contains(saga);
        SpanData sagaSend = trace.child(saga, "send bank.account", SpanKind.PRODUCER);
        assertThat(attribute(sagaSend, "lanes.command.type")).isEqualTo("Deposit");
        SpanData credit = trace.child(sagaSend, "process bank.account", SpanKind.CONSUMER);
        assertThat(attribute(credit, "lanes.aggregate.id")).isEqualTo(to.id());
        SpanData credited = trace.child(credit, "publish bank.account", SpanKind.PRODUCER);
        trace.child(credited, "process " + BalanceProjection.NAME, SpanKind.CONSUMER);
        trace.child(credited, "process " + TransferSaga.NAME, SpanKind.CONSUMER);

        DomainEventStream stored = Objects.requireNonNull(store.load(to, 2).blockFirst(TIMEOUT), "credit stream");
        assertThat(stored.correlationId()).isEqualTo(withdraw.messageId());
        assertThat(stored.headers().get(MessageTracing.TRACEPARENT))
                .as("the store keeps the lane's context, the Kafka record carries the publication's")
                .contains(credit.getSpanId());
    }

    private TraceTree trace() {
        List<SpanData> all = new ArrayList<>();
        instances.forEach(instance -> all.addAll(instance.spans()));
        return TraceTree.ofSend(all, "Withdraw");
    }

    private static void send(Instance instance, CommandMessage command) {
        instance.lanes.gateway().send(command, WaitStage.PROCESSED).block(TIMEOUT);
    }
}
