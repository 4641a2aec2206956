package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandResult;
import dev.lanes.command.RequestIdReusedException;
import dev.lanes.command.WaitStage;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.test.EventStoreContract.Deposited;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The command hash travels in the stored stream's headers through PostgreSQL: a request id read back from the table is
 * answered for the same command and refused, naming both hashes, for another.
 */
class PostgresRequestIdReuseTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate TILL = NamedAggregate.of("pg", "till");

    record Deposit(long amount) {}

    private final PostgresEventStore store = TestDatabase.store();
    private final AggregateId till = AggregateId.of(TILL, "t-" + UUID.randomUUID());
    private final Lanes lanes = Lanes.builder()
            .aggregate(AggregateDefinition.<Long>builder(TILL, id -> 0L)
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

    private CommandResult send(long amount, String requestId, String hash) {
        CommandMessage message =
                CommandMessage.of(till, new Deposit(amount), requestId).withHeader(CommandMessage.HASH_HEADER, hash);
        return lanes.gateway().send(message, WaitStage.PROCESSED, TIMEOUT).block(TIMEOUT.multipliedBy(2));
    }

    @Test
    void aStoredRequestIdAnswersTheSameCommandAndRefusesAnother() {
        CommandResult first = send(5, "req-1", "h-5");

        CommandResult again = send(5, "req-1", "h-5");
        assertThatThrownBy(() -> send(7, "req-1", "h-7"))
                .isInstanceOf(RequestIdReusedException.class)
                .hasMessageContaining("'req-1'")
                .hasMessageContaining("stored command hash h-5")
                .hasMessageContaining("this command's hash h-7");

        assertThat(again.commandId()).isEqualTo(first.commandId());
        assertThat(again.version()).isEqualTo(1);
        assertThat(store.load(till, 1).collectList().block(TIMEOUT))
                .singleElement()
                .satisfies(stream -> assertThat(stream.headers()).containsEntry(CommandMessage.HASH_HEADER, "h-5"));
    }
}
