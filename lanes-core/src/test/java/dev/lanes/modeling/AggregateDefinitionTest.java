package dev.lanes.modeling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class AggregateDefinitionTest {
    private static final NamedAggregate COUNTER = NamedAggregate.of("test", "counter");
    private static final AggregateId ID = AggregateId.of(COUNTER, "c-1");

    sealed interface Command {}

    record Add(int amount) implements Command {}

    record AddTwiceAsync(int amount) implements Command {}

    record AddLater(int amount) implements Command {}

    record Reset() implements Command {}

    record Unknown() {}

    sealed interface Event {}

    record Added(int amount) implements Event {}

    record WasReset() implements Event {}

    private final AggregateDefinition<Integer> counter = AggregateDefinition.<Integer>builder(COUNTER, id -> 0)
            .handle(Add.class, (state, command) -> List.of(new Added(command.amount())))
            .handleAsync(
                    AddTwiceAsync.class,
                    (state, command) -> Flux.just(new Added(command.amount()), new Added(command.amount())))
            .handleAsync(
                    AddLater.class,
                    (state, command) -> Mono.delay(Duration.ofMillis(1)).thenReturn(new Added(command.amount())))
            .handle(Command.class, (state, command) -> List.of(new WasReset()))
            .apply(Added.class, (state, event) -> state + event.amount())
            .apply(Event.class, (state, event) -> 0)
            .build();

    @Test
    void plainMonoAndFluxHandlersAllYieldTheirEventsInOrder() {
        StepVerifier.create(counter.decide(0, new Add(3)))
                .expectNext(List.of(new Added(3)))
                .verifyComplete();
        StepVerifier.create(counter.decide(0, new AddTwiceAsync(2)))
                .expectNext(List.of(new Added(2), new Added(2)))
                .verifyComplete();
        StepVerifier.create(counter.decide(0, new AddLater(4)))
                .expectNext(List.of(new Added(4)))
                .verifyComplete();
    }

    @Test
    void aDirectHandlerAnswersAsACallableAndRunsOnlyWhenAsked() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        AggregateDefinition<Integer> counting = AggregateDefinition.<Integer>builder(COUNTER, id -> 0)
                .handle(Add.class, (state, command) -> {
                    calls.incrementAndGet();
                    return List.of(new Added(command.amount()));
                })
                .build();

        Mono<List<Object>> decided = counting.decide(0, new Add(1));

        assertThat(calls).hasValue(0);
        assertThat(decided).isInstanceOf(Callable.class);
        assertThat(((Callable<?>) decided).call()).isEqualTo(List.of(new Added(1)));
        StepVerifier.create(decided).expectNext(List.of(new Added(1))).verifyComplete();
        assertThat(calls).hasValue(2);
    }

    @Test
    void aDirectHandlerReturningANullEventFailsNamingTheCommandAndIndex() {
        AggregateDefinition<Integer> broken = AggregateDefinition.<Integer>builder(COUNTER, id -> 0)
                .handle(Add.class, (state, command) -> Arrays.asList(new Added(1), null))
                .build();

        StepVerifier.create(broken.decide(0, new Add(1)))
                .verifyErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(NullPointerException.class)
                        .hasMessage("The handler of " + Add.class.getName() + " on test.counter returned a null event"
                                + " at index 1"));
    }

    @Test
    void theNearestRegisteredSupertypeHandlesACommandOrEvent() {
        StepVerifier.create(counter.decide(5, new Reset()))
                .expectNext(List.of(new WasReset()))
                .verifyComplete();
        assertThat(counter.apply(9, new WasReset())).isZero();
        assertThat(counter.apply(9, new Added(1))).isEqualTo(10);
    }

    @Test
    void evolveFoldsEventsIntoANewVersion() {
        AggregateState<Integer> start = counter.initial(ID);
        assertThat(start.version()).isZero();
        assertThat(start.exists()).isFalse();
        AggregateState<Integer> next = counter.evolve(start, 1, List.of(new Added(2), new Added(5)));
        assertThat(next).isEqualTo(new AggregateState<>(ID, 1, 7));
        assertThat(next.nextVersion()).isEqualTo(2);
    }

    @Test
    void aCommandWithoutHandlerFailsNamingItsClassAndTheAggregate() {
        StepVerifier.create(counter.decide(0, new Unknown()))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(Unknown.class.getName())
                        .hasMessageContaining("test.counter"))
                .verify();
        assertThat(counter.handles(new Unknown())).isFalse();
        assertThat(counter.handles(new Add(1))).isTrue();
    }

    @Test
    void aHandlerThatThrowsSignalsItsErrorUnchanged() {
        AggregateDefinition<Integer> strict = AggregateDefinition.<Integer>builder(COUNTER, id -> 0)
                .handle(Add.class, (state, command) -> {
                    throw new CommandRejectedException("too much: " + command.amount());
                })
                .build();
        StepVerifier.create(strict.decide(0, new Add(1_000)))
                .expectErrorMatches(error -> error instanceof CommandRejectedException
                        && error.getMessage().equals("too much: 1000"))
                .verify();
    }

    @Test
    void anEventWithoutApplierFailsNamingIt() {
        AggregateDefinition<Integer> partial = AggregateDefinition.<Integer>builder(COUNTER, id -> 0)
                .handle(Add.class, (state, command) -> List.of(new Added(1)))
                .build();
        assertThatIllegalStateException()
                .isThrownBy(() -> partial.apply(0, new Added(1)))
                .withMessageContaining(Added.class.getName());
    }

    @Test
    void duplicateRegistrationsAndEmptyDefinitionsAreRejected() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> AggregateDefinition.<Integer>builder(COUNTER, id -> 0)
                        .handle(Add.class, (s, c) -> List.of())
                        .handle(Add.class, (s, c) -> List.of()))
                .withMessageContaining("already registered on test.counter");
        assertThatIllegalStateException()
                .isThrownBy(() ->
                        AggregateDefinition.<Integer>builder(COUNTER, id -> 0).build())
                .withMessage("test.counter has no command handler");
    }
}
