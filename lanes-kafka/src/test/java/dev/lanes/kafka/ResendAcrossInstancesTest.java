package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * A resend is answered with what its request id stored, whichever instance's lane decided it: two instances share the
 * broker and the store, the command topic's partitions are split between them, and every account opened from the first
 * is opened again with the same request ids (new messages). The lanes decide the resends again ("already open"), and
 * each sender is answered with the first send's result, naming the command that stored it, also through the reply
 * topic from the other instance; nothing more is stored.
 */
class ResendAcrossInstancesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int ACCOUNTS = 24;

    @Test
    void aResendIsAnsweredWithWhatItsRequestIdStoredAlsoFromTheOtherInstance() {
        String run = "resend" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(4, (short) 1);
        EventStore store = EventStores.inMemory();
        Instance sender = new Instance(options.withInstanceId("sender-" + run), store);
        Instance other = new Instance(options.withInstanceId("other-" + run), store);
        try {
            await().atMost(TIMEOUT)
                    .until(() -> !sender.commands().assignment().isEmpty()
                            && !other.commands().assignment().isEmpty()
                            && sender.commands().assignment().size()
                                            + other.commands().assignment().size()
                                    == 4);

            List<CommandResult> first = openAll(sender);
            List<CommandResult> again = openAll(sender);

            assertThat(again).isEqualTo(first);
            assertThat(again).extracting(CommandResult::version).containsOnly(1);
            assertThat(other.decisions.get())
                    .as("decisions the other instance made for the sender")
                    .isPositive();
            assertThat(sender.decisions.get() + other.decisions.get()).isEqualTo(2 * ACCOUNTS);
            for (int i = 0; i < ACCOUNTS; i++) {
                assertThat(store.load(Ledger.account("r" + i), 1).collectList().block(TIMEOUT))
                        .hasSize(1);
            }
        } finally {
            sender.lanes.stop();
            other.lanes.stop();
        }
    }

    /** Opens every account, request id {@code open-<i>}, a new message each time; results in account order. */
    private static List<CommandResult> openAll(Instance instance) {
        return Flux.range(0, ACCOUNTS)
                .concatMap(i -> instance.lanes
                        .gateway()
                        .send(
                                CommandMessage.of(Ledger.account("r" + i), new Ledger.Open("o" + i), "open-" + i),
                                WaitStage.PROCESSED))
                .collectList()
                .block(TIMEOUT);
    }

    /** One instance: its own connection, the shared store; counts the decisions its lanes make. */
    private static final class Instance {
        final KafkaBuses kafka;
        final Lanes lanes;
        final AtomicInteger decisions = new AtomicInteger();

        Instance(KafkaOptions options, EventStore store) {
            this.kafka = KafkaBuses.create(options);
            this.lanes = kafka.applyTo(Lanes.builder())
                    .aggregate(Ledger.definition())
                    .handlerInterceptor((command, state, handler) -> {
                        decisions.incrementAndGet();
                        return handler;
                    })
                    .eventStore(store)
                    .commandTimeout(TIMEOUT)
                    .build()
                    .start(TIMEOUT);
        }

        KafkaConsumerComponent commands() {
            return kafka.commandBus(lanes.commandResults()).consumer();
        }
    }
}
