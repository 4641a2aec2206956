package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.PayloadCodecException;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.JacksonEventSerializer;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;

/**
 * An event the receiving instance cannot decode is not skipped: its stream goes through the processor's sequenced
 * dead-letter queue (durable, on PostgreSQL), so the aggregate's later streams wait behind it while other aggregates
 * flow; once a release whose codec reads it (here, an upcaster from the revision it was written at) owns the
 * partition, a retry delivers the aggregate's streams in order.
 */
class UndecodableEventHoldsItsAggregateTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String NOTIFIER = "Notifier";
    private static final String CREDITED = "ledger.Credited";

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private final String run = "undecodable" + UUID.randomUUID().toString().substring(0, 8);
    private final KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
            .withTopics(TopicNaming.perContext(run))
            .withTopicCreation(1, (short) 1);
    private final Queue<String> handled = new ConcurrentLinkedQueue<>();
    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable resource = opened.poll(); resource != null; resource = opened.poll()) {
            resource.close();
        }
    }

    @Test
    void theAggregateWaitsBehindItsUndecodableStreamUntilARetryOnAReleaseThatReadsItDeliversThemInOrder() {
        String database = InstanceDatabases.fresh();
        // a newer release writes Credited at revision 2; the first reader knows revision 1 only
        KafkaBuses writer = writer(EventTypes.builder()
                .register(Ledger.Credited.class, CREDITED, 2)
                .build());
        Instance first = instance(
                "first",
                database,
                EventTypes.builder()
                        .register(Ledger.Credited.class, CREDITED, 1)
                        .build());
        AggregateId held = Ledger.account("held");
        AggregateId flowing = Ledger.account("flowing");

        first.lanes.start(TIMEOUT);
        await().atMost(TIMEOUT).until(first::owns);
        publish(writer, held, 1, new Ledger.Opened("ada"));
        publish(writer, held, 2, new Ledger.Credited(5));
        publish(writer, held, 3, new Ledger.Debited(1));
        publish(writer, flowing, 1, new Ledger.Opened("bob"));
        publish(writer, flowing, 2, new Ledger.Credited(7)); // not decodable either: parked, holding only its own

        await().atMost(TIMEOUT).until(() -> handled.contains("first " + flowing + " v1"));
        List<DeadLetter> letters = awaitParked(first, held, 2);
        assertThat(letters).extracting(letter -> letter.stream().version()).containsExactly(2, 3);
        DeadLetter head = letters.get(0);
        assertThat(head.attempts()).as("parked at once, not retried").isEqualTo(1);
        assertThat(head.reason())
                .startsWith(PayloadCodecException.class.getName() + ": Cannot decode event 1 of " + held + " v2")
                .contains("encoded as " + CREDITED + "@2", CREDITED + " is at revision 1");
        assertThat(head.stream().payloads())
                .singleElement()
                .isInstanceOfSatisfying(
                        UndecodedPayload.class,
                        payload -> assertThat(payload.encoded())
                                .as("stored as it was encoded")
                                .isEqualTo(new EncodedPayload(CREDITED, 2, "{\"amount\":5}")));
        assertThat(awaitParked(first, flowing, 1))
                .extracting(letter -> letter.stream().version())
                .containsExactly(2);
        assertThat(handled).containsExactlyInAnyOrder("first " + held + " v1", "first " + flowing + " v1");
        assertThat(first.retry(held))
                .as("the same codec still cannot read it")
                .extracting(RetryOutcome::delivered, RetryOutcome::remaining)
                .containsExactly(0, 2);

        // the next release: revision 3, and an upcaster from 2
        Instance second = instance(
                "second",
                database,
                EventTypes.builder()
                        .register(Ledger.Credited.class, CREDITED, 3)
                        .upcaster(CREDITED, 2, event -> event.as(CREDITED, 3))
                        .build());
        second.lanes.start(TIMEOUT);
        first.lanes.stop(); // a rolling deploy: the partition moves to the second instance, drained and committed
        await().atMost(TIMEOUT).until(second::owns);
        publish(writer, held, 4, new Ledger.Credited(2));
        awaitParked(second, held, 3);

        RetryOutcome outcome = second.retry(held);

        assertThat(outcome).isEqualTo(new RetryOutcome(NOTIFIER, held, 3, 0, 0, null));
        assertThat(handled)
                .as("the other aggregate's stream, in its own lane, in any order with these")
                .containsOnlyOnce("first " + flowing + " v1");
        assertThat(handled.stream().filter(line -> line.contains(" " + held + " ")))
                .as("the held aggregate's streams, in version order")
                .containsExactly(
                        "first " + held + " v1",
                        "second " + held + " v2 Credited[amount=5]",
                        "second " + held + " v3 Debited[amount=1]",
                        "second " + held + " v4 Credited[amount=2]");
        assertThat(handled).hasSize(5);
        assertThat(second.retry(flowing)).isEqualTo(new RetryOutcome(NOTIFIER, flowing, 1, 0, 0, null));
        assertThat(logs.lines(Level.ERROR)).as("no record parked unread").isEmpty();
    }

    private KafkaBuses writer(EventTypes types) {
        KafkaBuses writer = KafkaBuses.create(
                options.withInstanceId(run + "-writer"),
                new JacksonPayloadSerializer(JacksonPayloadSerializer.defaultObjectMapper(), types));
        writer.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        writer.start();
        opened.push(() -> writer.stopGracefully().block(TIMEOUT));
        return writer;
    }

    private static void publish(KafkaBuses writer, AggregateId id, int version, Object event) {
        writer.eventBus()
                .publish(DomainEventStream.of(CommandMessage.of(id, new Ledger.Open("x")), version, List.of(event)))
                .block(TIMEOUT);
    }

    /** An instance of a release whose store, dead-letter queue and bus share one codec with {@code types}. */
    private Instance instance(String name, String database, EventTypes types) {
        JacksonEventSerializer codec = new JacksonEventSerializer(JacksonEventSerializer.defaultObjectMapper(), types);
        PostgresEventStore store = InstanceDatabases.connect(database, name);
        opened.push(store);
        PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.open(store.dataSource(), codec);
        opened.push(queue);
        KafkaBuses kafka = KafkaBuses.create(options.withInstanceId(run + "-" + name), codec);
        Lanes lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition()) // a Lanes instance has one; no command is sent here
                .processor(EventProcessor.builder(NOTIFIER, ProcessorKind.HANDLER)
                        .on(
                                Ledger.ACCOUNT,
                                Object.class,
                                (event, context) -> Mono.fromRunnable(() -> {
                                    String version = context.stream().aggregateId() + " v" + context.version();
                                    handled.add(
                                            name + " " + version + (event instanceof Ledger.Opened ? "" : " " + event));
                                }))
                        .build())
                .eventSettings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.DEFAULT))
                .eventStore(store)
                .deadLetterQueue(queue)
                .build();
        Instance instance = new Instance(kafka, lanes);
        opened.push(instance);
        return instance;
    }

    private static List<DeadLetter> awaitParked(Instance instance, AggregateId id, int letters) {
        return await().atMost(TIMEOUT)
                .until(
                        () -> instance.lanes.deadLetters().list(NOTIFIER, id).block(TIMEOUT),
                        parked -> parked.size() == letters);
    }

    private record Instance(KafkaBuses kafka, Lanes lanes) implements AutoCloseable {

        boolean owns() {
            return kafka.eventBus().consumer(NOTIFIER).assignment().size() == 1;
        }

        RetryOutcome retry(AggregateId id) {
            return lanes.deadLetters().retry(NOTIFIER, id).block(TIMEOUT);
        }

        @Override
        public void close() {
            lanes.stop();
        }
    }
}
