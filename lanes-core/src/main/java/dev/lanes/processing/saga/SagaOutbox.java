package dev.lanes.processing.saga;

import dev.lanes.api.LanesException;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.flow.Backlog;
import dev.lanes.flow.IntakeGate;
import dev.lanes.internal.Ids;
import dev.lanes.internal.Internal;
import dev.lanes.internal.route.LocalExchange;
import dev.lanes.lifecycle.ActivityLease;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.messaging.EventContext;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * Sends a saga's recorded commands outside its lanes and turns each outcome into a {@link SagaReply} for the saga's
 * lane of the causing aggregate.
 *
 * <p><b>No lane waits.</b> {@link #send} returns at once; the gateway's answer arrives on whatever thread reports it,
 * and becomes a reply message. Transient failures (a full lane, a timed-out wait: the command is resent with the same
 * request id, so it is applied once) are retried with backoff; others are replied.
 *
 * <p><b>Bound.</b> Pending commands (sent, reply not yet taken by the saga's lane) count in a {@link Backlog}: at its
 * budget it closes the saga's intake gate, so the saga takes no new event streams (its consumer group's route on the
 * bus fills, which in turn pauses new commands at the command side) until replies bring it back to half. Streams the
 * saga had already taken (at most its dispatcher's {@code maxQueued}, plus the {@link IntakeGate#WINDOW} in
 * hand-over) still run, so the pending commands may pass the budget by what those record. The commands themselves are
 * follow-ups: the command bus never refuses or gates them, so this pause always drains.
 *
 * <p><b>Lifecycle.</b> Each pending command holds an activity lease until its reply is taken (or dropped), so a
 * graceful stop waits for it. After {@link #stop()} no command is sent or retried and replies are dropped with a log
 * line.
 */
@Internal
public final class SagaOutbox {
    private static final Logger log = LoggerFactory.getLogger(SagaOutbox.class);

    /** A command recorded by a saga, with the event whose handling recorded it. */
    public record Intent(SagaCommand command, EventContext cause, String saga) {

        /**
         * A fresh message (new message id) carrying the command's request id, marked as a follow-up of the event that
         * caused it ({@link CommandMessage#CAUSE_HEADER}, its causation id), in the request of that event's stream (its
         * correlation id), with the cause stream's headers named in {@code propagated}.
         */
        CommandMessage message(Set<String> propagated) {
            DomainEventStream stream = cause.stream();
            Map<String, String> headers = new HashMap<>();
            for (String name : propagated) {
                String value = stream.headers().get(name);
                if (value != null) {
                    headers.put(name, value);
                }
            }
            headers.put("lanes.saga", saga);
            headers.put(CommandMessage.CAUSE_HEADER, cause.eventKey());
            headers.put(CommandMessage.CORRELATION_HEADER, stream.correlationId());
            String id = Ids.randomUuid();
            return new CommandMessage(
                    id, command.target(), command.requestId(), command.command(), Instant.now(), headers);
        }
    }

    private final String saga;
    /** The headers of a cause stream that its saga's commands carry on (besides the correlation id). */
    private final Set<String> propagatedHeaders;

    private final CommandGateway gateway;
    private final RetryPolicy retries;
    private final Scheduler timer;
    private final IntakeGate gate;
    private final Backlog pending;
    private volatile RuntimeContext context = RuntimeContext.standalone();
    private volatile @Nullable Consumer<MessageExchange<Object>> replies;
    private volatile boolean stopped;

    public SagaOutbox(
            String saga,
            CommandGateway gateway,
            int maxPending,
            RetryPolicy retries,
            Scheduler timer,
            Set<String> propagatedHeaders) {
        this.saga = saga;
        this.propagatedHeaders = Set.copyOf(propagatedHeaders);
        this.gateway = Objects.requireNonNull(gateway, "gateway");
        this.retries = Objects.requireNonNull(retries, "retries");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.gate = new IntakeGate(saga + " pending commands");
        this.pending = new Backlog(gate, maxPending);
    }

    /**
     * The transient failures worth sending again with the same request id: a full lane, an overloaded bus, a wait that
     * timed out (the command may have been stored: the resend learns it), a recoverable store error.
     */
    public static boolean transientFailure(Throwable error) {
        if (error instanceof StageNotReachedException notReached) {
            return notReached.reason() == StageNotReachedException.Reason.TIMED_OUT;
        }
        if (error instanceof ExchangeRejectedException rejected) {
            return rejected.reason() == ExchangeRejectedException.Reason.LANE_FULL;
        }
        return error instanceof LanesException lanes && lanes.isRecoverable();
    }

    /** The saga's intake gate: closed while the pending commands are at their budget. */
    public IntakeGate gate() {
        return gate;
    }

    int pending() {
        return pending.size();
    }

    /** Where replies go: the saga's dispatcher; set once. */
    public synchronized void bind(Consumer<MessageExchange<Object>> replies) {
        if (this.replies != null) {
            throw new IllegalStateException("Saga " + saga + " already runs in a dispatcher");
        }
        this.replies = Objects.requireNonNull(replies, "replies");
    }

    public void prepare(RuntimeContext context) {
        this.context = Objects.requireNonNull(context, "context");
    }

    /** Sends what a handling recorded, in order; returns at once. */
    void send(List<Intent> intents) {
        intents.forEach(this::dispatch);
    }

    /** Sends nothing more, retries nothing more; pending replies are dropped as they come. */
    public void stop() {
        stopped = true;
    }

    /**
     * Sends {@code intent}'s command again, for the retry of a parked reply ({@link ParkedReply}): with its request id,
     * so the command side answers from its store if it stored the command, and runs it if it never did. Transient
     * failures are sent again after the policy's backoff on the outbox's timer, as for {@link #send}; the outcome,
     * success or failure, completes the returned {@code Mono} as a reply. Neither counted as pending nor leased: the
     * retry that waits for it holds its lane, and a stop ends it with the gateway's refusal as the reply's error.
     */
    public Mono<SagaReply<Object>> resend(Intent intent) {
        return Mono.defer(() -> gateway.send(intent.message(propagatedHeaders), WaitStage.PROCESSED))
                .retryWhen(Retry.from(signals -> signals.concatMap(signal -> {
                    int attempt = (int) Math.min(Integer.MAX_VALUE - 1, signal.totalRetries() + 1);
                    Throwable error = signal.failure();
                    return !stopped && retries.shouldRetry(attempt, error)
                            ? Mono.delay(retries.backoff(attempt), timer)
                            : Mono.<Long>error(error);
                })))
                .map(result -> replyTo(intent, result, null))
                .onErrorResume(error -> Mono.just(replyTo(intent, null, error)));
    }

    private static SagaReply<Object> replyTo(Intent intent, @Nullable CommandResult result, @Nullable Throwable error) {
        SagaCommand command = intent.command();
        return new SagaReply<>(command.command(), command.target(), command.requestId(), intent.cause(), result, error);
    }

    private void dispatch(Intent intent) {
        ActivityLease lease = stopped ? null : context.tryAcquire();
        if (lease == null) {
            log.warn("{} did not send {}: the runtime stopped taking work", this, intent.command());
            return;
        }
        pending.add();
        attempt(intent, lease, 1);
    }

    private void attempt(Intent intent, ActivityLease lease, int attempt) {
        if (stopped) {
            finish(lease);
            return;
        }
        gateway.send(intent.message(propagatedHeaders), WaitStage.PROCESSED)
                .subscribe(
                        result -> reply(intent, lease, result, null), error -> failed(intent, lease, attempt, error));
    }

    private void failed(Intent intent, ActivityLease lease, int attempt, Throwable error) {
        if (stopped || !retries.shouldRetry(attempt, error)) {
            reply(intent, lease, null, error);
            return;
        }
        Duration backoff = retries.backoff(attempt);
        log.debug("{} sends {} again in {} after: {}", this, intent.command(), backoff, error.toString());
        try {
            timer.schedule(() -> attempt(intent, lease, attempt + 1), backoff.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException refused) {
            reply(intent, lease, null, error);
        }
    }

    private void reply(Intent intent, ActivityLease lease, @Nullable CommandResult result, @Nullable Throwable error) {
        Consumer<MessageExchange<Object>> target = replies;
        if (stopped || target == null) {
            log.warn("{} dropped the outcome of {}: the saga is not running", this, intent.command());
            finish(lease);
            return;
        }
        SagaReply<Object> reply = replyTo(intent, result, error);
        target.accept(new LocalExchange<>(reply, intent.cause().aggregateId(), () -> finish(lease), reason -> {
            log.warn("{} dropped {}: the saga's dispatcher did not take it ({})", this, reply, reason.toString());
            finish(lease);
        }));
    }

    private void finish(ActivityLease lease) {
        pending.remove();
        lease.close();
    }

    @Override
    public String toString() {
        return "SagaOutbox[" + saga + ", " + pending + "]";
    }
}
