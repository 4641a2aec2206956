package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.tracing.MessageTrace;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.util.context.ContextView;

/**
 * A traced send: its trace starts at subscription with the subscriber's context, the delegate gets the command with
 * the trace's headers, and the trace ends exactly once with the send's result, error, cancellation or the delegate's
 * refusal to return a send at all.
 */
class TracedCommandGatewayTest {
    private static final AggregateId ACCOUNT = AggregateId.of(NamedAggregate.of("bank", "account"), "a-1");
    private static final CommandMessage COMMAND = CommandMessage.of(ACCOUNT, "deposit");

    /** Records each trace's start context and every end it is told, in order. */
    static final class Recording implements MessageTracing {
        final List<String> log = new ArrayList<>();

        @Override
        public MessageTrace send(CommandMessage command, ContextView context) {
            log.add("start " + context.getOrDefault("caller", "none"));
            return new MessageTrace() {
                @Override
                public Map<String, String> headers(Map<String, String> headers) {
                    return Map.of(TRACEPARENT, "traced");
                }

                @Override
                public void end(@Nullable Throwable error) {
                    log.add("end "
                            + (error == null ? "ok" : error.getClass().getSimpleName() + ": " + error.getMessage()));
                }
            };
        }

        @Override
        public MessageTrace command(CommandMessage command) {
            return MessageTrace.NONE;
        }

        @Override
        public MessageTrace handling(String processor, String kind, DomainEventStream stream) {
            return MessageTrace.NONE;
        }
    }

    /** A delegate that answers each send with {@code answer} and keeps the command it was given. */
    static class Delegate implements CommandGateway {
        final AtomicReference<@Nullable CommandMessage> sent = new AtomicReference<>();
        final Mono<CommandResult> answer;

        Delegate(Mono<CommandResult> answer) {
            this.answer = answer;
        }

        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
            sent.set(command);
            return answer;
        }

        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
            return send(command, waitStage);
        }
    }

    private final Recording tracing = new Recording();

    private static CommandResult processed() {
        return new CommandResult(COMMAND.messageId(), COMMAND.requestId(), ACCOUNT, WaitStage.PROCESSED, 1, List.of());
    }

    @Test
    void aResultEndsTheTraceOnceAfterStartingItWithTheSubscribersContext() {
        Delegate delegate = new Delegate(Mono.just(processed()));
        CommandGateway gateway = CommandGateways.traced(delegate, tracing);

        Mono<CommandResult> send = gateway.send(COMMAND, WaitStage.PROCESSED);
        assertThat(tracing.log).as("nothing starts before subscription").isEmpty();

        StepVerifier.create(send.contextWrite(context -> context.put("caller", "http")))
                .expectNext(processed())
                .verifyComplete();
        assertThat(tracing.log).containsExactly("start http", "end ok");
        CommandMessage sent = delegate.sent.get();
        assertThat(sent).isNotNull();
        assertThat(sent.messageId()).isEqualTo(COMMAND.messageId());
        assertThat(sent.headers()).containsEntry(MessageTracing.TRACEPARENT, "traced");
    }

    @Test
    void eachSubscriptionIsATraceOfItsOwn() {
        CommandGateway gateway = CommandGateways.traced(new Delegate(Mono.just(processed())), tracing);
        Mono<CommandResult> send = gateway.send(COMMAND, WaitStage.PROCESSED, Duration.ofSeconds(1));

        send.block(Duration.ofSeconds(5));
        send.block(Duration.ofSeconds(5));

        assertThat(tracing.log).containsExactly("start none", "end ok", "start none", "end ok");
    }

    @Test
    void anErrorEndsTheTraceWithIt() {
        CommandGateway gateway =
                CommandGateways.traced(new Delegate(Mono.error(new IllegalStateException("store down"))), tracing);

        StepVerifier.create(gateway.send(COMMAND, WaitStage.PROCESSED))
                .expectErrorMessage("store down")
                .verify(Duration.ofSeconds(5));
        assertThat(tracing.log).containsExactly("start none", "end IllegalStateException: store down");
    }

    @Test
    void aCancellationEndsTheTraceOnceAndCancelsTheSend() {
        Sinks.One<CommandResult> pending = Sinks.one();
        AtomicReference<Boolean> cancelled = new AtomicReference<>(false);
        CommandGateway gateway =
                CommandGateways.traced(new Delegate(pending.asMono().doOnCancel(() -> cancelled.set(true))), tracing);

        StepVerifier.create(gateway.send(COMMAND, WaitStage.PROCESSED))
                .expectSubscription()
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        pending.tryEmitValue(processed()); // too late: the send was cancelled

        assertThat(cancelled.get()).isTrue();
        assertThat(tracing.log)
                .containsExactly(
                        "start none",
                        "end " + CancellationException.class.getSimpleName() + ": the sender cancelled the send");
    }

    @Test
    void aDelegateThatThrowsEndsTheTraceAndFailsTheSend() {
        CommandGateway throwing = new Delegate(Mono.empty()) {
            @Override
            public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
                throw new IllegalArgumentException("no such aggregate type");
            }
        };
        CommandGateway gateway = CommandGateways.traced(throwing, tracing);

        StepVerifier.create(gateway.send(COMMAND, WaitStage.PROCESSED))
                .expectErrorMessage("no such aggregate type")
                .verify(Duration.ofSeconds(5));
        assertThat(tracing.log).containsExactly("start none", "end IllegalArgumentException: no such aggregate type");
    }

    @Test
    void anEmptySendEndsTheTraceAsDone() {
        CommandGateway gateway = CommandGateways.traced(new Delegate(Mono.empty()), tracing);

        StepVerifier.create(gateway.send(COMMAND, WaitStage.PROCESSED)).verifyComplete();
        assertThat(tracing.log).containsExactly("start none", "end ok");
    }
}
