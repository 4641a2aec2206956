package dev.lanes.processing.saga;

import dev.lanes.internal.Immediate;
import dev.lanes.internal.Internal;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The saga part of an event processor: its outbox and its reply functions. */
@Internal
public final class Saga {
    private static final Logger log = LoggerFactory.getLogger(Saga.class);

    private final String name;
    private final SagaOutbox outbox;
    private final List<ReplyRegistration> replies;
    /** The reply functions of each command class seen, resolved once. */
    private final Map<Class<?>, List<ReplyRegistration>> repliesTo = new ConcurrentHashMap<>();

    /** A reply function for one command type (and its subtypes). */
    public record ReplyRegistration(Class<?> commandType, SagaReplyFunction<Object> function) {

        @SuppressWarnings("unchecked")
        public static <C> ReplyRegistration of(Class<C> commandType, SagaReplyFunction<? super C> function) {
            return new ReplyRegistration(Objects.requireNonNull(commandType, "commandType"), (SagaReplyFunction<Object>)
                    Objects.requireNonNull(function, "function"));
        }
    }

    public Saga(String name, SagaOutbox outbox, List<ReplyRegistration> replies) {
        this.name = name;
        this.outbox = outbox;
        this.replies = List.copyOf(replies);
    }

    public SagaOutbox outbox() {
        return outbox;
    }

    /** A handling succeeded: its recorded commands go. */
    void sent(SagaBatch batch) {
        outbox.send(batch.close());
    }

    /** As {@link #sent}, at once; what it throws comes back as the error of the returned Mono. */
    public Mono<Void> sendNow(SagaBatch batch) {
        try {
            sent(batch);
            return Mono.empty();
        } catch (RuntimeException notSent) {
            return Mono.error(notSent);
        }
    }

    /**
     * Runs every reply function of the command's type, concurrently, when called (its lane's turn); then sends what
     * they recorded. A single function whose Mono answers at once (a Callable: empty, fromRunnable, error) is taken
     * with a plain call, as the functions of a stream are; the outcome is the same either way.
     */
    @SuppressWarnings("unchecked")
    public Mono<Void> handleNow(SagaReply<?> reply) {
        List<ReplyRegistration> functions =
                repliesTo.computeIfAbsent(reply.command().getClass(), this::matching);
        if (functions.isEmpty()) {
            if (!reply.succeeded()) {
                log.warn("Saga {} has no reply function for {}", name, reply);
            }
            return Mono.empty();
        }
        SagaBatch batch = new SagaBatch();
        SagaContext context = new SagaContext(reply.cause(), name, reply.requestId(), batch);
        SagaReply<Object> typed = (SagaReply<Object>) reply;
        Mono<Void> handled = functions.size() == 1
                ? invoke(functions.get(0), typed, context)
                : Flux.fromIterable(functions)
                        .flatMapDelayError(registration -> invoke(registration, typed, context), functions.size(), 1)
                        .then();
        // answered at once: no operators
        return Immediate.then(handled, failed -> failed != null ? Mono.error(failed) : sendNow(batch));
    }

    private List<ReplyRegistration> matching(Class<?> commandClass) {
        return replies.stream()
                .filter(registration -> registration.commandType().isAssignableFrom(commandClass))
                .toList();
    }

    /** Calls the function now; what it throws comes back as the error of the returned Mono. */
    private static Mono<Void> invoke(ReplyRegistration registration, SagaReply<Object> reply, SagaContext context) {
        try {
            return Objects.requireNonNull(
                    registration.function().handle(reply, context), "reply function returned null");
        } catch (Throwable failed) {
            Exceptions.throwIfJvmFatal(failed);
            return Mono.error(failed);
        }
    }
}
