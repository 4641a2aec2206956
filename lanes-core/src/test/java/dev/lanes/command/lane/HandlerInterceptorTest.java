package dev.lanes.command.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.AggregateDefinition;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Handler interceptors run around the handler in the lane, the first registered outermost; what one throws or errors
 * with is the command's failure and nothing is stored.
 */
class HandlerInterceptorTest {
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
                    calls.add("handler");
                    return List.of(new Deposited(deposit.amount()));
                })
                .apply(Deposited.class, (balance, deposited) -> balance + deposited.amount())
                .build();
    }

    private void start(HandlerInterceptor... interceptors) {
        Lanes.Builder builder = Lanes.builder().aggregate(till()).eventStore(store);
        for (HandlerInterceptor interceptor : interceptors) {
            builder.handlerInterceptor(interceptor);
        }
        lanes = builder.build().start();
    }

    @AfterEach
    void stop() {
        lanes.stop();
    }

    private CommandResult deposit(int amount) {
        return lanes.gateway()
                .send(CommandMessage.of(TILL_1, new Deposit(amount)), WaitStage.PROCESSED, TIMEOUT)
                .block(TIMEOUT);
    }

    private HandlerInterceptor around(String name) {
        return (command, state, handler) -> {
            calls.add(name + " before, balance " + state);
            return handler.doOnSuccess(events -> calls.add(name + " after " + events));
        };
    }

    @Test
    void theFirstRegisteredIsOutermostAndEachSeesTheStateTheHandlerDecidesOn() {
        start(around("outer"), around("inner"));
        deposit(5);
        calls.clear();

        deposit(7);

        assertThat(calls)
                .containsExactly(
                        "outer before, balance 5",
                        "inner before, balance 5",
                        "handler",
                        "inner after [Deposited[amount=7]]",
                        "outer after [Deposited[amount=7]]");
    }

    @Test
    void aThrowingInterceptorFailsTheCommandWithItsExceptionAndNothingIsStored() {
        IllegalStateException refused = new IllegalStateException("till locked");
        start(around("outer"), (command, state, handler) -> {
            throw refused;
        });

        assertThatThrownBy(() -> deposit(5)).isSameAs(refused);

        assertThat(handled).hasValue(0);
        assertThat(calls).containsExactly("outer before, balance 0");
        assertThat(store.load(TILL_1, 1).collectList().block(TIMEOUT)).isEmpty();
    }

    @Test
    void anErrorOfTheReturnedMonoFailsTheCommandAfterTheHandlerRanAndNothingIsStored() {
        start((command, state, handler) -> handler.then(Mono.error(new IllegalArgumentException("too many events"))));

        assertThatThrownBy(() -> deposit(5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("too many events");

        assertThat(handled).hasValue(1);
        assertThat(store.load(TILL_1, 1).collectList().block(TIMEOUT)).isEmpty();
    }

    @Test
    void theEventsAnInterceptorReturnsAreStored() {
        start((command, state, handler) -> handler.map(events -> List.of(new Deposited(1), new Deposited(2))));

        CommandResult result = deposit(5);

        assertThat(result.events()).containsExactly(new Deposited(1), new Deposited(2));
        assertThat(store.load(TILL_1, 1).blockFirst(TIMEOUT).payloads())
                .containsExactly(new Deposited(1), new Deposited(2));
    }
}
