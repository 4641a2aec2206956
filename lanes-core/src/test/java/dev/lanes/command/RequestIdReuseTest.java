package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.AggregateDefinition;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request id answered from the store is compared by its command hash: the same command gets the stored result, another
 * command (another hash) is refused naming the request id and both hashes, and nothing more is stored.
 */
class RequestIdReuseTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate TILL = NamedAggregate.of("shop", "till");
    private static final AggregateId TILL_1 = AggregateId.of(TILL, "t-1");

    record Deposit(int amount) {}

    record Deposited(int amount) {}

    private final EventStore store = EventStores.inMemory();
    private final Lanes lanes = Lanes.builder()
            .aggregate(AggregateDefinition.<Integer>builder(TILL, id -> 0)
                    .handle(Deposit.class, (balance, deposit) -> List.of(new Deposited(deposit.amount())))
                    .apply(Deposited.class, (balance, deposited) -> balance + deposited.amount())
                    .build())
            .eventStore(store)
            .build()
            .start();

    @AfterEach
    void stop() {
        lanes.stop();
    }

    private CommandResult send(int amount, String requestId, String hash) {
        CommandMessage message =
                CommandMessage.of(TILL_1, new Deposit(amount), requestId).withHeader(CommandMessage.HASH_HEADER, hash);
        return lanes.gateway().send(message, WaitStage.PROCESSED, TIMEOUT).block(TIMEOUT.multipliedBy(2));
    }

    @Test
    void theSameCommandAgainIsAnsweredWithTheStoredResult() {
        CommandResult first = send(5, "req-1", "h-5");

        CommandResult again = send(5, "req-1", "h-5");

        assertThat(again.version()).isEqualTo(first.version()).isEqualTo(1);
        assertThat(again.commandId()).isEqualTo(first.commandId());
        assertThat(store.load(TILL_1, 1).collectList().block(TIMEOUT)).hasSize(1);
    }

    @Test
    void anotherCommandWithAStoredRequestIdIsRefusedNamingBothHashes() {
        send(5, "req-2", "h-5");

        assertThatThrownBy(() -> send(7, "req-2", "h-7"))
                .isInstanceOfSatisfying(RequestIdReusedException.class, refused -> {
                    assertThat(refused.requestId()).isEqualTo("req-2");
                    assertThat(refused.storedHash()).isEqualTo("h-5");
                    assertThat(refused.sentHash()).isEqualTo("h-7");
                })
                .hasMessageContaining("'req-2'")
                .hasMessageContaining("h-5")
                .hasMessageContaining("h-7")
                .hasMessageContaining(TILL_1.toString());
        assertThat(store.load(TILL_1, 1).collectList().block(TIMEOUT)).hasSize(1);
    }

    @Test
    void aCommandWithoutAHashIsNotCompared() {
        send(5, "req-3", "h-5");

        CommandResult unhashed = lanes.gateway()
                .send(CommandMessage.of(TILL_1, new Deposit(7), "req-3"), WaitStage.PROCESSED, TIMEOUT)
                .block(TIMEOUT.multipliedBy(2));

        assertThat(unhashed.version()).isEqualTo(1);
        assertThat(unhashed.events()).containsExactly(new Deposited(5));
    }
}
