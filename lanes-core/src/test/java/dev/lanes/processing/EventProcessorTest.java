package dev.lanes.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * A processor runs a stream's events in order, each event's functions when its turn comes; functions that answer at
 * once are taken with plain calls, and the outcome is the one the reactive chain gives.
 */
class EventProcessorTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");

    private final List<String> handled = new CopyOnWriteArrayList<>();

    private static DomainEventStream stream(String... events) {
        return DomainEventStream.of(
                CommandMessage.of(AggregateId.of(ORDER, "o-1"), "Place", "r-1"), 1, List.of((Object[]) events));
    }

    private EventProcessor projection(EventFunction<String> function) {
        return EventProcessor.builder("Orders", ProcessorKind.PROJECTION)
                .on(ORDER, String.class, function)
                .build();
    }

    private Mono<Void> record(String event) {
        return Mono.fromRunnable(() -> handled.add(event));
    }

    @Test
    void nothingRunsBeforeTheHandlingIsSubscribed() {
        EventProcessor processor = projection((event, context) -> record(event));

        Mono<Void> handling = processor.handle(stream("placed", "paid"));
        assertThat(handled).isEmpty();

        StepVerifier.create(handling).verifyComplete();
        assertThat(handled).containsExactly("placed", "paid");
    }

    @Test
    void functionsThatAnswerAtOnceLeaveNothingToSubscribeTo() {
        EventProcessor processor = projection((event, context) -> record(event));

        Mono<Void> handling = processor.handleNow(stream("placed", "paid", "shipped"));

        assertThat(handled).as("ran when called: the lane's turn").containsExactly("placed", "paid", "shipped");
        assertThat(handling).isInstanceOf(Callable.class);
        StepVerifier.create(handling).verifyComplete();
    }

    @Test
    void eventsAfterOneThatAnswersLaterWaitForIt() {
        Sinks.Empty<Void> paymentChecked = Sinks.empty();
        EventProcessor processor = projection((event, context) ->
                event.equals("paid") ? paymentChecked.asMono().then(record(event)) : record(event));

        StepVerifier.create(processor.handle(stream("placed", "paid", "shipped")))
                .then(() -> assertThat(handled).containsExactly("placed"))
                .then(paymentChecked::tryEmitEmpty)
                .verifyComplete();
        assertThat(handled).containsExactly("placed", "paid", "shipped");
    }

    @Test
    void aFunctionThatThrowsFailsTheHandlingAndStopsTheStream() {
        IllegalStateException broken = new IllegalStateException("row locked");
        EventProcessor processor = projection((event, context) -> {
            if (event.equals("paid")) {
                throw broken;
            }
            return record(event);
        });

        Mono<Void> handling = processor.handleNow(stream("placed", "paid", "shipped"));

        assertThat(handling).isInstanceOf(Callable.class);
        StepVerifier.create(handling)
                .verifyErrorSatisfies(error -> assertThat(error).isSameAs(broken));
        assertThat(handled).containsExactly("placed");
    }

    @Test
    void aFunctionThatThrowsAfterOneThatAnswersLaterFailsTheHandlingToo() {
        Sinks.Empty<Void> paymentChecked = Sinks.empty();
        EventProcessor processor = projection((event, context) -> switch (event) {
            case "paid" -> paymentChecked.asMono().then(record(event));
            case "shipped" -> throw new IllegalStateException("no carrier");
            default -> record(event);
        });

        StepVerifier.create(processor.handle(stream("placed", "paid", "shipped")))
                .then(paymentChecked::tryEmitEmpty)
                .verifyErrorMessage("no carrier");
        assertThat(handled).containsExactly("placed", "paid");
    }
}
