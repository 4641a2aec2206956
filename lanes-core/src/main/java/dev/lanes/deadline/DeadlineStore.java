package dev.lanes.deadline;

import dev.lanes.api.AggregateId;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Where deadlines wait until they are due. Several {@link DeadlineRunner}s (one per instance of a service) may share
 * one durable store: a claim hides a deadline from the others until its lease ends, so each due deadline is claimed
 * by one runner at a time; a runner that dies with a claim leaves it to the others once the lease has passed.
 *
 * <p>Times are those of the callers' clocks (the runners' {@link java.time.Clock}s): instances sharing a store must
 * have clocks that roughly agree. Every method is asynchronous and thread-safe; {@code lanes-test}'s {@code
 * DeadlineStoreContract} states the contract as tests.
 */
public interface DeadlineStore {

    /** Stores {@code deadline}, replacing one with the same id (and its claim). */
    Mono<Void> schedule(Deadline deadline);

    /**
     * Removes the deadlines named {@code name} of {@code target}; a claimed one may still fire (its target must tell a
     * stale deadline from a live one, as a process manager does).
     *
     * @return how many were removed
     */
    Mono<Integer> cancel(AggregateId target, String name);

    /** Removes the deadline {@code id}, whether claimed or not: when it was handled, or cancelled by id. */
    Mono<Boolean> remove(String id);

    /**
     * Claims at most {@code max} deadlines due at {@code now} that nobody holds (never claimed, or a claim that ended
     * before {@code now}), earliest first, until {@code now + lease}.
     */
    Mono<List<Deadline>> claimDue(Instant now, int max, Duration lease);

    /** Ends the claim on {@code id} early: it can be claimed again at {@code retryAt}. Nothing if it is gone. */
    Mono<Void> release(String id, Instant retryAt);

    /** Every deadline not yet removed, claimed or not, earliest first: for audits and tests. */
    Mono<List<Deadline>> pending();

    /** Whether its deadlines survive the process (a database): an in-memory store's do not. */
    default boolean durable() {
        return false;
    }
}
