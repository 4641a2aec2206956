package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.deadline.Deadline;
import dev.lanes.deadline.DeadlineStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The behaviour every {@link DeadlineStore} must show: deadlines kept until removed, due ones claimed earliest first,
 * a claim hiding a deadline until its lease ends, and concurrent claimers never sharing a deadline. Extend it and
 * implement {@link #createStore()}, which must return an empty store (or a second view of it, see {@link
 * #secondView}); payloads are {@link Payload} records, which a serializing store must be able to write.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
public abstract class DeadlineStoreContract {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");
    private static final NamedAggregate ORDER = NamedAggregate.of("contract", "order");

    /** The command a contract deadline carries. */
    public record Payload(String text) {}

    private DeadlineStore store;

    /** An empty store, called once per test. */
    protected abstract DeadlineStore createStore();

    /**
     * Another view of the same deadlines, as a second instance of a service sees them (its own pool, for a database);
     * the store itself unless overridden.
     */
    protected DeadlineStore secondView(DeadlineStore store) {
        return store;
    }

    @BeforeEach
    void setUpStore() {
        store = createStore();
    }

    private static Deadline deadline(String id, String order, String name, Instant dueAt) {
        return new Deadline(id, AggregateId.of(ORDER, order), name, dueAt, new Payload("for " + order));
    }

    private void schedule(Deadline... deadlines) {
        for (Deadline deadline : deadlines) {
            store.schedule(deadline).block(TIMEOUT);
        }
    }

    private List<Deadline> claim(Instant now, int max) {
        return Objects.requireNonNull(store.claimDue(now, max, LEASE).block(TIMEOUT), "claimed");
    }

    private List<Deadline> pending() {
        return Objects.requireNonNull(store.pending().block(TIMEOUT), "pending");
    }

    private static List<String> ids(List<Deadline> deadlines) {
        return deadlines.stream().map(Deadline::id).toList();
    }

    @Test
    void aScheduledDeadlineIsPendingWithEveryFieldAsWritten() {
        Deadline due = deadline("d1", "o1", "payment-due", T0);
        schedule(due);

        assertThat(pending()).containsExactly(due);
    }

    @Test
    void onlyDueDeadlinesAreClaimedEarliestFirstAtMostMax() {
        schedule(
                deadline("late", "o1", "a", T0.plusSeconds(60)),
                deadline("second", "o2", "a", T0.minusSeconds(10)),
                deadline("first", "o3", "a", T0.minusSeconds(20)),
                deadline("third", "o4", "a", T0));

        assertThat(ids(claim(T0, 2))).containsExactly("first", "second");
        assertThat(ids(claim(T0, 10))).containsExactly("third");
        assertThat(claim(T0, 10)).isEmpty();
    }

    @Test
    void aClaimHidesTheDeadlineUntilItsLeaseEnds() {
        schedule(deadline("d1", "o1", "a", T0));
        assertThat(claim(T0, 10)).hasSize(1);

        assertThat(claim(T0.plus(LEASE).minusSeconds(1), 10)).isEmpty();
        assertThat(ids(claim(T0.plus(LEASE), 10))).containsExactly("d1");
    }

    @Test
    void aReleasedDeadlineIsClaimableAgainAtItsRetryTime() {
        schedule(deadline("d1", "o1", "a", T0));
        claim(T0, 10);
        store.release("d1", T0.plusSeconds(5)).block(TIMEOUT);

        assertThat(claim(T0.plusSeconds(4), 10)).isEmpty();
        assertThat(ids(claim(T0.plusSeconds(5), 10))).containsExactly("d1");
    }

    @Test
    void removeTakesAClaimedDeadlineAwayOnce() {
        schedule(deadline("d1", "o1", "a", T0));
        claim(T0, 10);

        assertThat(store.remove("d1").block(TIMEOUT)).isTrue();
        assertThat(store.remove("d1").block(TIMEOUT)).isFalse();
        assertThat(pending()).isEmpty();
    }

    @Test
    void cancelRemovesTheNamedDeadlinesOfThatTargetOnly() {
        schedule(
                deadline("d1", "o1", "payment-due", T0),
                deadline("d2", "o1", "reminder", T0),
                deadline("d3", "o2", "payment-due", T0));

        assertThat(store.cancel(AggregateId.of(ORDER, "o1"), "payment-due").block(TIMEOUT))
                .isEqualTo(1);
        assertThat(ids(pending())).containsExactlyInAnyOrder("d2", "d3");
    }

    @Test
    void schedulingAnIdAgainReplacesItAndItsClaim() {
        schedule(deadline("d1", "o1", "a", T0));
        claim(T0, 10);
        Deadline moved = deadline("d1", "o1", "a", T0.plusSeconds(30));
        schedule(moved);

        assertThat(pending()).containsExactly(moved);
        assertThat(ids(claim(T0.plusSeconds(30), 10))).containsExactly("d1");
    }

    @Test
    void concurrentClaimersNeverShareADeadlineAndTogetherClaimEveryOne() throws Exception {
        int count = 200;
        List<Deadline> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            all.add(deadline("race-" + i, "o" + i, "a", T0.minusSeconds(i % 7)));
        }
        schedule(all.toArray(Deadline[]::new));
        DeadlineStore other = secondView(store);
        CyclicBarrier start = new CyclicBarrier(2);
        CompletableFuture<List<String>> first = CompletableFuture.supplyAsync(() -> drain(store, start));
        CompletableFuture<List<String>> second = CompletableFuture.supplyAsync(() -> drain(other, start));
        List<String> a = first.get(30, TimeUnit.SECONDS);
        List<String> b = second.get(30, TimeUnit.SECONDS);

        Set<String> shared = new HashSet<>(a);
        shared.retainAll(b);
        assertThat(shared).as("deadlines claimed by both claimers").isEmpty();
        assertThat(a.size() + b.size()).isEqualTo(count);
    }

    private static List<String> drain(DeadlineStore claimer, CyclicBarrier start) {
        try {
            start.await(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        List<String> claimed = new ArrayList<>();
        while (true) {
            List<Deadline> batch =
                    Objects.requireNonNull(claimer.claimDue(T0, 7, LEASE).block(TIMEOUT), "batch");
            if (batch.isEmpty()) {
                return claimed;
            }
            claimed.addAll(ids(batch));
        }
    }
}
