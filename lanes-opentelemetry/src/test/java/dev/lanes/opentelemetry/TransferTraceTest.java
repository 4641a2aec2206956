package dev.lanes.opentelemetry;

import static dev.lanes.opentelemetry.TraceTree.attribute;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.AccountEvent;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.testsupport.TestPostgres;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

/**
 * One transfer of the bank example is one trace: the gateway's send, the debit's lane, the saga, the saga's send, the
 * credit's lane and the projections (bus-fed, and a tracking processor reading the store), each the child of the one
 * before; the stored events carry the request's correlation id, their causes and the trace context of their lane, on
 * the in-memory store and on PostgreSQL.
 */
class TransferTraceTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final SdkTracerProvider provider = SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter))
            .build();
    private final MessageTracing tracing = LanesTracing.of(
            OpenTelemetrySdk.builder().setTracerProvider(provider).build());
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private EventStore store = EventStores.inMemory();
    private Lanes lanes;

    @AfterEach
    void stop() {
        if (lanes != null) {
            lanes.stop();
        }
        if (store instanceof PostgresEventStore postgres) {
            postgres.close();
        }
        provider.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"in-memory", "postgresql"})
    void aTransferIsOneTraceFromTheGatewayThroughTheSagaToTheProjections(String storeKind) {
        if (storeKind.equals("postgresql")) {
            PostgresEventStore postgres =
                    PostgresEventStore.connect(TestPostgres.emptyDatabase(), TestPostgres.USER, null);
            postgres.migrate();
            store = postgres;
        }
        lanes = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(store)
                .tracing(tracing)
                .processor(TransferSaga::processor)
                .processor(new BalanceProjection().processor())
                .trackingProcessor(
                        (events, parked) -> TrackingProcessor.builder(audit(), events, CheckpointStores.inMemory())
                                .deadLetterQueue(parked)
                                .tracing(tracing)
                                .build())
                .build()
                .start();
        AggregateId from = Bank.account("from-" + run);
        AggregateId to = Bank.account("to-" + run);
        send(CommandMessage.of(from, new OpenAccount("Ada")));
        send(CommandMessage.of(to, new OpenAccount("Bob")));
        send(CommandMessage.of(from, new Deposit(100)));
        CommandMessage withdraw = new CommandMessage(
                "withdraw-" + run,
                from,
                "withdraw-" + run,
                new Withdraw(30, TransferSaga.debitReference(run, to.id())),
                Instant.now(),
                Map.of(CommandMessage.CORRELATION_HEADER, "corr-" + run));

        send(withdraw);

        // send, lane, saga, projection and tracking audit of the debit; saga's send, lane, saga, projection and
        // tracking audit of the credit
        TraceTree trace = awaitTrace("Withdraw", 10);
        SpanData send = trace.root();
        assertThat(send.getName()).isEqualTo("send bank.account");
        assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(attribute(send, "messaging.message.id")).isEqualTo(withdraw.messageId());
        assertThat(attribute(send, "messaging.message.conversation_id")).isEqualTo("corr-" + run);
        SpanData debit = trace.child(send, "process bank.account", SpanKind.CONSUMER);
        assertThat(attribute(debit, "messaging.system")).isEqualTo("lanes");
        assertThat(attribute(debit, "messaging.operation.type")).isEqualTo("process");
        assertThat(attribute(debit, "messaging.destination.name")).isEqualTo("bank.account");
        assertThat(attribute(debit, "lanes.aggregate.type")).isEqualTo("bank.account");
        assertThat(attribute(debit, "lanes.aggregate.id")).isEqualTo(from.id());
        assertSteps(trace, debit);
        SpanData saga = trace.child(debit, "process " + TransferSaga.NAME, SpanKind.CONSUMER);
        trace.child(debit, "process " + BalanceProjection.NAME, SpanKind.CONSUMER);
        trace.child(debit, "process Audit", SpanKind.CONSUMER);
        SpanData sagaSend = trace.child(saga, "send bank.account", SpanKind.PRODUCER);
        assertThat(attribute(sagaSend, "lanes.command.type")).isEqualTo("Deposit");
        assertThat(attribute(sagaSend, "lanes.aggregate.id")).isEqualTo(to.id());
        SpanData credit = trace.child(sagaSend, "process bank.account", SpanKind.CONSUMER);
        assertThat(attribute(credit, "lanes.aggregate.id")).isEqualTo(to.id());
        assertSteps(trace, credit);
        trace.child(credit, "process " + TransferSaga.NAME, SpanKind.CONSUMER);
        trace.child(credit, "process " + BalanceProjection.NAME, SpanKind.CONSUMER);
        trace.child(credit, "process Audit", SpanKind.CONSUMER);

        DomainEventStream debited = stream(from, 3);
        DomainEventStream credited = stream(to, 2);
        assertThat(debited.correlationId()).isEqualTo("corr-" + run);
        assertThat(debited.causationId()).isEqualTo(withdraw.messageId());
        assertThat(credited.correlationId()).isEqualTo("corr-" + run);
        assertThat(credited.causationId()).isEqualTo(attribute(sagaSend, "messaging.message.id"));
        assertThat(credited.headers()).containsEntry(CommandMessage.CAUSE_HEADER, debited.id() + "/1");
        assertThat(debited.headers().get(MessageTracing.TRACEPARENT))
                .as("the debit's events carry its lane's context")
                .isEqualTo(traceparent(debit));
        assertThat(credited.headers().get(MessageTracing.TRACEPARENT)).isEqualTo(traceparent(credit));
    }

    /** The lane's span marks the end of each step with an event, in order, within the span. */
    private static void assertSteps(TraceTree trace, SpanData lane) {
        assertThat(trace.children(lane))
                .as("the steps are events, not spans")
                .allSatisfy(child -> assertThat(child.getKind()).isEqualTo(SpanKind.CONSUMER));
        List<EventData> steps = lane.getEvents();
        assertThat(steps).extracting(EventData::getName).containsExactly("load", "decide", "append", "publish");
        long previous = lane.getStartEpochNanos();
        for (EventData step : steps) {
            assertThat(step.getEpochNanos()).as(step.getName()).isGreaterThanOrEqualTo(previous);
            previous = step.getEpochNanos();
        }
        assertThat(previous).isLessThanOrEqualTo(lane.getEndEpochNanos());
    }

    private static String traceparent(SpanData span) {
        return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-"
                + span.getSpanContext().getTraceFlags().asHex();
    }

    private static EventProcessor audit() {
        return EventProcessor.builder("Audit", ProcessorKind.HANDLER)
                .on(Bank.ACCOUNT, AccountEvent.class, (event, context) -> Mono.empty())
                .build();
    }

    private void send(CommandMessage command) {
        lanes.gateway().send(command, WaitStage.PROCESSED).block(TIMEOUT);
    }

    private TraceTree awaitTrace(String commandType, int spans) {
        Supplier<TraceTree> trace = () -> TraceTree.ofSend(exporter.getFinishedSpanItems(), commandType);
        Awaitility.await()
                .atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(trace.get().names()).hasSize(spans));
        return trace.get();
    }

    private DomainEventStream stream(AggregateId id, int version) {
        return Objects.requireNonNull(store.load(id, version).blockFirst(TIMEOUT), () -> id + " v" + version);
    }
}
