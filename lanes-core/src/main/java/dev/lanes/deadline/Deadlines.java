package dev.lanes.deadline;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Ids;
import dev.lanes.internal.Require;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Schedules and cancels deadlines in a {@link DeadlineStore}: a command sent to an aggregate at an instant (or after a
 * delay on the injected {@link Clock}) by a {@link DeadlineRunner}, unless cancelled by name first.
 *
 * <pre>{@code
 * Deadlines deadlines = Deadlines.of(store, clock);
 * deadlines.scheduleAfter(orderId, "payment-due", Duration.ofMinutes(15), new CancelOrder("no payment")).block();
 * deadlines.cancel(orderId, "payment-due").block();
 * }</pre>
 *
 * <p>Thread-safe; every method is lazy (nothing happens before subscription).
 */
public final class Deadlines {
    private final DeadlineStore store;
    private final Clock clock;

    private Deadlines(DeadlineStore store, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Deadlines kept in {@code store}, with delays counted from {@code clock}. */
    public static Deadlines of(DeadlineStore store, Clock clock) {
        return new Deadlines(store, clock);
    }

    /**
     * A clock that reads {@code scheduler}'s {@link Scheduler#now} (UTC): give the same {@code VirtualTimeScheduler} to
     * a {@link DeadlineRunner} and to this clock, and {@code advanceTimeBy} moves both.
     */
    public static Clock clockOf(Scheduler scheduler) {
        return new SchedulerClock(Objects.requireNonNull(scheduler, "scheduler"), ZoneOffset.UTC);
    }

    public DeadlineStore store() {
        return store;
    }

    public Clock clock() {
        return clock;
    }

    /** Schedules {@code payload} for {@code target} at {@code at}, under a new random id. */
    public Mono<Deadline> schedule(AggregateId target, String name, Instant at, Object payload) {
        return Mono.defer(() -> schedule(new Deadline(Ids.randomUuid(), target, name, at, payload)));
    }

    /** Schedules {@code payload} for {@code target} {@code delay} from now on this clock, under a new random id. */
    public Mono<Deadline> scheduleAfter(AggregateId target, String name, Duration delay, Object payload) {
        return Mono.defer(
                () -> schedule(target, name, clock.instant().plus(Require.notNegative(delay, "delay")), payload));
    }

    /** Stores {@code deadline} (an id of the caller's choice: scheduling the same id again replaces it). */
    public Mono<Deadline> schedule(Deadline deadline) {
        Objects.requireNonNull(deadline, "deadline");
        return store.schedule(deadline).thenReturn(deadline);
    }

    /** Removes {@code target}'s deadlines named {@code name}; see {@link DeadlineStore#cancel}. */
    public Mono<Integer> cancel(AggregateId target, String name) {
        return Mono.defer(() -> store.cancel(target, name));
    }

    @Override
    public String toString() {
        return "Deadlines[" + store + "]";
    }

    /** A clock over a Reactor scheduler's time. */
    private static final class SchedulerClock extends Clock {
        private final Scheduler scheduler;
        private final ZoneId zone;

        SchedulerClock(Scheduler scheduler, ZoneId zone) {
            this.scheduler = scheduler;
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId other) {
            return new SchedulerClock(scheduler, other);
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(scheduler.now(TimeUnit.MILLISECONDS));
        }
    }
}
