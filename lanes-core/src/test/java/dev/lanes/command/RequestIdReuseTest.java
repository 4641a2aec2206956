package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

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

    /** A deposit of this amount waits in its handler until {@link #release} is emitted. */
    private static final int HELD = 99;

    private final EventStore store = EventStores.inMemory();
    private final CountDownLatch heldEntered = new CountDownLatch(1);
    private final Sinks.Empty<Void> release = Sinks.empty();
    private final Lanes lanes = lanes();
    private final List<Lanes> others = new ArrayList<>();

    /** One instance over the shared store; deposits of {@link #HELD} are held in the handler. */
    private Lanes lanes() {
        return Lanes.builder()
                .aggregate(AggregateDefinition.<Integer>builder(TILL, id -> 0)
                        .handleAsync(Deposit.class, (balance, deposit) -> {
                            if (deposit.amount() != HELD) {
                                return Mono.just(new Deposited(deposit.amount()));
                            }
                            heldEntered.countDown();
                            return release.asMono().thenReturn(new Deposited(deposit.amount()));
                        })
                        .apply(Deposited.class, (balance, deposited) -> balance + deposited.amount())
                        .build())
                .eventStore(store)
                .build()
                .start();
    }

    @AfterEach
    void stop() {
        release.tryEmitEmpty();
        lanes.stop();
        others.forEach(Lanes::stop);
    }

    private CommandResult send(int amount, String requestId, String hash) {
        return send(lanes, amount, requestId, hash);
    }

    private static CommandResult send(Lanes lanes, int amount, String requestId, String hash) {
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

    @Test
    void anotherCommandThatStoredTheRequestIdWhileThisOneWasDecidedIsNamedToItsSender() throws Exception {
        // this instance decides the held deposit; another instance over the same store stores another command of the
        // same request id meanwhile (both passed the gateway's lookup while nothing was stored); the till exists, so
        // the
        // held one's append conflicts, is retried, and meets the stored request id
        send(1, "req-open", "h-1");
        CompletableFuture<CommandResult> held = CompletableFuture.supplyAsync(() -> send(HELD, "req-4", "h-held"));
        assertThat(heldEntered.await(10, TimeUnit.SECONDS)).isTrue();
        Lanes other = lanes();
        others.add(other);
        assertThat(send(other, 7, "req-4", "h-7").version()).isEqualTo(2);

        release.tryEmitEmpty();

        assertThatThrownBy(() -> held.get(20, TimeUnit.SECONDS))
                .cause()
                .isInstanceOfSatisfying(RequestIdReusedException.class, refused -> {
                    assertThat(refused.storedHash()).isEqualTo("h-7");
                    assertThat(refused.sentHash()).isEqualTo("h-held");
                });
        assertThat(store.load(TILL_1, 1).collectList().block(TIMEOUT))
                .extracting(DomainEventStream::payloads)
                .containsExactly(List.of(new Deposited(1)), List.of(new Deposited(7)));
    }
}
