package dev.lanes.processing.deadletter;

import dev.lanes.eventsourcing.Segment;
import dev.lanes.internal.Internal;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Takes the retries requested from outside (by {@code lanes parked retry|skip}) from a dead-letter queue, every
 * interval, and runs each through the lanes. One poll at a time; a failed poll or retry is logged and the next poll
 * goes on. A tick at which the event side is not active (a tracking processor that does not hold its claim) takes
 * nothing: the requests stay for the instance that runs the processor. Each tick takes only the requests of the
 * aggregates in the segments the supplier names at that tick (the whole stream, {@link Segment#ALL}, for the bus's
 * event side and the command dead letters; the segments it holds for a tracking processor), so that a retry runs in
 * the lane of the instance that reads the aggregate's segment. Started once; after {@link #stop()} it never
 * polls again.
 */
@Internal
public final class RetryRequestPolling {
    private static final Logger log = LoggerFactory.getLogger(RetryRequestPolling.class);
    private static final Disposable STOPPED = () -> {};
    private static final Set<Segment> ALL = Set.of(Segment.ALL);

    /** The segments of an event side that is not split: the whole stream. */
    public static final Supplier<Set<Segment>> WHOLE_STREAM = () -> ALL;

    private final String owner;
    private final DeadLetterQueue queue;
    private final DeadLetters deadLetters;
    private final Set<String> processors;
    private final Duration interval;
    private final Scheduler timer;
    private final BooleanSupplier active;
    private final Supplier<Set<Segment>> segments;
    private final AtomicReference<@Nullable Disposable> polling = new AtomicReference<>();

    public RetryRequestPolling(
            String owner,
            DeadLetterQueue queue,
            DeadLetters deadLetters,
            Set<String> processors,
            Duration interval,
            Scheduler timer,
            BooleanSupplier active,
            Supplier<Set<Segment>> segments) {
        this.owner = owner;
        this.queue = queue;
        this.deadLetters = deadLetters;
        this.processors = Set.copyOf(processors);
        this.interval = interval;
        this.timer = timer;
        this.active = active;
        this.segments = segments;
    }

    public void start() {
        Disposable started = Flux.interval(interval, timer)
                .onBackpressureDrop()
                .concatMap(tick -> poll(), 1)
                .subscribe();
        if (!polling.compareAndSet(null, started)) {
            started.dispose(); // stopped before it started
        }
    }

    public void stop() {
        Disposable current = polling.getAndSet(STOPPED);
        if (current != null) {
            current.dispose();
        }
    }

    private Mono<Void> poll() {
        if (!active.getAsBoolean()) {
            return Mono.empty();
        }
        return queue.takeRetryRequests(processors, segments.get())
                .flatMapMany(Flux::fromIterable)
                .concatMap(requested -> deadLetters
                        .retry(requested.processor(), requested.aggregateId())
                        .doOnNext(outcome -> log.info("{} ran a requested retry: {}", owner, outcome))
                        .onErrorResume(error -> {
                            log.warn("{} could not run the requested retry of {}", owner, requested, error);
                            return Mono.empty();
                        }))
                .then()
                .onErrorResume(error -> {
                    log.warn("{} could not take the requested retries from {}", owner, queue, error);
                    return Mono.empty();
                });
    }
}
