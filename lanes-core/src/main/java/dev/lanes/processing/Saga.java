package dev.lanes.processing;

import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The saga part of an event processor: its outbox and its reply functions. */
final class Saga {
    private static final Logger log = LoggerFactory.getLogger(Saga.class);

    private final String name;
    private final SagaOutbox outbox;
    private final List<ReplyRegistration> replies;

    /** A reply function for one command type (and its subtypes). */
    record ReplyRegistration(Class<?> commandType, SagaReplyFunction<Object> function) {

        @SuppressWarnings("unchecked")
        static <C> ReplyRegistration of(Class<C> commandType, SagaReplyFunction<? super C> function) {
            return new ReplyRegistration(Objects.requireNonNull(commandType, "commandType"), (SagaReplyFunction<Object>)
                    Objects.requireNonNull(function, "function"));
        }
    }

    Saga(String name, SagaOutbox outbox, List<ReplyRegistration> replies) {
        this.name = name;
        this.outbox = outbox;
        this.replies = List.copyOf(replies);
    }

    SagaOutbox outbox() {
        return outbox;
    }

    /** A handling succeeded: its recorded commands go. */
    void sent(SagaBatch batch) {
        outbox.send(batch.close());
    }

    /** Runs every reply function of the command's type, concurrently; then sends what they recorded. */
    @SuppressWarnings("unchecked")
    Mono<Void> handle(SagaReply<?> reply) {
        return Mono.defer(() -> {
            List<ReplyRegistration> functions = replies.stream()
                    .filter(registration -> registration.commandType().isInstance(reply.command()))
                    .toList();
            if (functions.isEmpty()) {
                if (!reply.succeeded()) {
                    log.warn("Saga {} has no reply function for {}", name, reply);
                }
                return Mono.empty();
            }
            SagaBatch batch = new SagaBatch();
            SagaContext context = new SagaContext(reply.cause(), name, reply.requestId(), batch);
            SagaReply<Object> typed = (SagaReply<Object>) reply;
            return Flux.fromIterable(functions)
                    .flatMapDelayError(
                            registration -> Mono.defer(() -> Objects.requireNonNull(
                                    registration.function().handle(typed, context), "reply function returned null")),
                            functions.size(),
                            1)
                    .then(Mono.fromRunnable(() -> sent(batch)));
        });
    }
}
