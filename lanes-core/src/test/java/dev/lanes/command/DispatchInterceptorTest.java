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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.util.context.Context;

/** Dispatch interceptors run in registration order before the send; one that throws ends the send and nothing is stored. */
class DispatchInterceptorTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate TILL = NamedAggregate.of("shop", "till");
    private static final AggregateId TILL_1 = AggregateId.of(TILL, "t-1");

    record Deposit(int amount) {}

    record Deposited(int amount) {}

    private final EventStore store = EventStores.inMemory();
    private final AtomicInteger handled = new AtomicInteger();
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private Lanes lanes = Lanes.builder().aggregate(till()).build();

    private AggregateDefinition<Integer> till() {
        return AggregateDefinition.<Integer>builder(TILL, id -> 0)
                .handle(Deposit.class, (balance, deposit) -> {
                    handled.incrementAndGet();
                    return List.of(new Deposited(deposit.amount()));
                })
                .apply(Deposited.class, (balance, deposited) -> balance + deposited.amount())
                .build();
    }

    private Lanes start(DispatchInterceptor... interceptors) {
        Lanes.Builder builder = Lanes.builder().aggregate(till()).eventStore(store);
        for (DispatchInterceptor interceptor : interceptors) {
            builder.dispatchInterceptor(interceptor);
        }
        lanes.stop();
        lanes = builder.build().start();
        return lanes;
    }

    @AfterEach
    void stop() {
        lanes.stop();
    }

    private DispatchInterceptor header(String name) {
        return (command, context) -> {
            calls.add(name + " saw "
                    + command.headers().keySet().stream().sorted().toList());
            return command.withHeader(name, context.getOrDefault("tenant", "none"));
        };
    }

    @Test
    void interceptorsRunInRegistrationOrderAndTheirHeadersAreStoredWithTheEvents() {
        start(header("first"), header("second"));

        lanes.gateway()
                .send(CommandMessage.of(TILL_1, new Deposit(5), "req-1"), WaitStage.PROCESSED, TIMEOUT)
                .contextWrite(Context.of("tenant", "acme"))
                .block(TIMEOUT);

        assertThat(calls).containsExactly("first saw []", "second saw [first]");
        DomainEventStream stored = store.load(TILL_1, 1).blockFirst(TIMEOUT);
        assertThat(stored).isNotNull();
        assertThat(stored.headers()).containsEntry("first", "acme").containsEntry("second", "acme");
    }

    @Test
    void aThrowingInterceptorEndsTheSendWithItsExceptionAndNothingIsSentOrStored() {
        IllegalArgumentException invalid = new IllegalArgumentException("amount must be positive");
        start(
                header("first"),
                (command, context) -> {
                    throw invalid;
                },
                header("third"));

        assertThatThrownBy(() -> lanes.gateway()
                        .send(CommandMessage.of(TILL_1, new Deposit(-1), "req-2"), WaitStage.PROCESSED, TIMEOUT)
                        .block(TIMEOUT))
                .isSameAs(invalid);

        assertThat(calls).containsExactly("first saw []");
        assertThat(handled).hasValue(0);
        assertThat(store.load(TILL_1, 1).collectList().block(TIMEOUT)).isEmpty();
    }

    @Test
    void theyRunAtEverySendOfARequestIdThatTheStoreThenAnswers() {
        start(header("first"));
        CommandMessage deposit = CommandMessage.of(TILL_1, new Deposit(5), "req-3");
        CommandResult first =
                lanes.gateway().send(deposit, WaitStage.PROCESSED, TIMEOUT).block(TIMEOUT);

        CommandResult again =
                lanes.gateway().send(deposit, WaitStage.PROCESSED, TIMEOUT).block(TIMEOUT);

        assertThat(calls).hasSize(2);
        // the resend is decided again (nothing asks the store before), and the store's request id key refuses its
        // append: it is answered with what the first send stored
        assertThat(handled).hasValue(2);
        assertThat(again).isEqualTo(first);
        assertThat(store.load(TILL_1, 1).collectList().block(TIMEOUT)).hasSize(1);
    }

    @Test
    void anInterceptorThatChangesTheRequestIdIsRefusedNamingIt() {
        DispatchInterceptor rewriting = new DispatchInterceptor() {
            @Override
            public CommandMessage intercept(CommandMessage command, reactor.util.context.ContextView context) {
                return CommandMessage.of(command.aggregateId(), command.command(), "other");
            }

            @Override
            public String toString() {
                return "Rewriting";
            }
        };
        start(rewriting);

        assertThatThrownBy(() -> lanes.gateway()
                        .send(CommandMessage.of(TILL_1, new Deposit(5), "req-4"), WaitStage.PROCESSED, TIMEOUT)
                        .block(TIMEOUT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("dispatch interceptor Rewriting")
                .hasMessageContaining("request id");
        assertThat(handled).hasValue(0);
    }
}
