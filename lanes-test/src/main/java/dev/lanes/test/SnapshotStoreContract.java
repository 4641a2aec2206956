package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.Snapshot;
import dev.lanes.eventsourcing.SnapshotStore;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The behaviour every {@link SnapshotStore} must show: the latest snapshot wins, an older snapshot never replaces a
 * newer one, an unknown aggregate has none. Extend it and implement {@link #createStore()}.
 *
 * <p>Every test uses fresh random aggregate ids, so the store may be shared between tests. Snapshot states are
 * {@link AccountState} records (strings, longs, ints, booleans) that a serializing store must round-trip to equal
 * values; {@code createdAt} is truncated to milliseconds and must come back equal.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
public abstract class SnapshotStoreContract {

    /** The aggregate type of the contract's snapshots. */
    protected static final NamedAggregate ACCOUNT = NamedAggregate.of("contract", "account");

    /** A snapshot state. */
    public record AccountState(String owner, long balance, int deposits, boolean frozen) {}

    private SnapshotStore store;

    /** The store under test, called once per test; may be shared (the tests use fresh aggregate ids). */
    protected abstract SnapshotStore createStore();

    /** How long one store operation may take before the test fails. */
    protected Duration timeout() {
        return Duration.ofSeconds(10);
    }

    @BeforeEach
    void setUpStore() {
        store = createStore();
    }

    /** A fresh aggregate id that no other test (or run) uses. */
    protected static AggregateId newAggregateId() {
        return AggregateId.of(ACCOUNT, "acc-" + UUID.randomUUID());
    }

    protected static Snapshot snapshot(AggregateId aggregateId, int version) {
        return new Snapshot(
                aggregateId,
                version,
                new AccountState("owner of " + aggregateId.id(), version * 100L, version, version % 2 == 0),
                Instant.now().truncatedTo(ChronoUnit.MILLIS));
    }

    private void save(Snapshot snapshot) {
        StepVerifier.create(store.save(snapshot)).expectComplete().verify(timeout());
    }

    private void assertLatest(AggregateId aggregateId, Snapshot expected) {
        StepVerifier.create(store.load(aggregateId))
                .assertNext(loaded -> {
                    assertThat(loaded.version()).as("version").isEqualTo(expected.version());
                    assertThat(loaded.aggregateId()).as("aggregateId").isEqualTo(expected.aggregateId());
                    assertThat(loaded.state())
                            .as("state")
                            .isInstanceOf(AccountState.class)
                            .isEqualTo(expected.state());
                    assertThat(loaded.createdAt()).as("createdAt").isEqualTo(expected.createdAt());
                    assertThat(loaded).isEqualTo(expected);
                })
                .expectComplete()
                .verify(timeout());
    }

    @Nested
    @DisplayName("Loading")
    public class Loading {

        @Test
        @DisplayName("an aggregate without a snapshot loads empty")
        void unknownAggregateIsEmpty() {
            StepVerifier.create(store.load(newAggregateId())).expectComplete().verify(timeout());
        }

        @Test
        @DisplayName("a saved snapshot loads back with every field and its state preserved")
        void roundTrip() {
            AggregateId id = AggregateId.of(ACCOUNT, "acc-" + UUID.randomUUID(), "tenant-" + UUID.randomUUID());
            Snapshot saved = new Snapshot(
                    id,
                    17,
                    new AccountState("Grace \"quoted\" \u00e9\u4e2d\n", Long.MIN_VALUE, Integer.MAX_VALUE, true),
                    Instant.parse("2001-02-03T04:05:06.789Z"));

            save(saved);

            assertLatest(id, saved);
        }

        @Test
        @DisplayName("snapshots of different aggregates are independent")
        void aggregatesAreIndependent() {
            AggregateId one = newAggregateId();
            AggregateId other = newAggregateId();
            Snapshot ofOne = snapshot(one, 5);
            Snapshot ofOther = snapshot(other, 2);

            save(ofOne);
            save(ofOther);

            assertLatest(one, ofOne);
            assertLatest(other, ofOther);
        }

        @Test
        @DisplayName("save stores nothing until subscribed")
        void saveIsLazy() {
            AggregateId id = newAggregateId();
            Snapshot snapshot = snapshot(id, 1);

            Mono<Void> pending = store.save(snapshot);

            StepVerifier.create(store.load(id)).expectComplete().verify(timeout());
            StepVerifier.create(pending).expectComplete().verify(timeout());
            assertLatest(id, snapshot);
        }
    }

    @Nested
    @DisplayName("The latest snapshot wins")
    public class LatestWins {

        @Test
        @DisplayName("a newer snapshot replaces an older one")
        void newerReplacesOlder() {
            AggregateId id = newAggregateId();
            save(snapshot(id, 1));
            save(snapshot(id, 4));
            Snapshot latest = snapshot(id, 9);

            save(latest);

            assertLatest(id, latest);
        }

        @Test
        @DisplayName("an older snapshot never replaces a newer one")
        void olderNeverReplacesNewer() {
            AggregateId id = newAggregateId();
            Snapshot newer = snapshot(id, 10);
            save(newer);

            save(snapshot(id, 9));
            save(snapshot(id, 1));

            assertLatest(id, newer);
        }

        @Test
        @DisplayName("concurrent saves of interleaved versions: the newest wins and a load never goes back in time")
        void concurrentSaves() throws InterruptedException {
            // in step s, thread t saves version s * threads + t + 1; all threads start each step together, so the
            // saves of neighbouring versions race, and a slow thread's save is older than what is already stored
            int threads = 8;
            int steps = 250;
            int versions = threads * steps;
            AggregateId id = newAggregateId();
            List<Snapshot> snapshots = IntStream.rangeClosed(1, versions)
                    .mapToObj(v -> snapshot(id, v))
                    .toList();

            CyclicBarrier stepStart = new CyclicBarrier(threads);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Void>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int thread = t;
                    futures.add(pool.submit(() -> {
                        for (int step = 0; step < steps; step++) {
                            stepStart.await(timeout().toMillis(), TimeUnit.MILLISECONDS);
                            Snapshot mine = snapshots.get(step * threads + thread);
                            store.save(mine).block(timeout());
                            Snapshot loaded = store.load(id).block(timeout());
                            if (loaded == null) {
                                throw new AssertionError("load right after saving v" + mine.version() + " was empty");
                            }
                            assertThat(loaded.version())
                                    .as("load right after saving v%d", mine.version())
                                    .isGreaterThanOrEqualTo(mine.version());
                        }
                        return null;
                    }));
                }
                for (Future<Void> future : futures) {
                    try {
                        future.get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        throw new AssertionError("a concurrent saver failed: " + e.getCause(), e.getCause());
                    } catch (TimeoutException e) {
                        throw new AssertionError("concurrent savers did not finish", e);
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new AssertionError("concurrent savers did not stop");
            }

            assertLatest(id, snapshots.get(versions - 1));
        }
    }

    @Nested
    @DisplayName("Bad input is rejected clearly")
    public class BadInput {

        @Test
        @DisplayName(
                "a null snapshot or aggregate id is rejected with NullPointerException or IllegalArgumentException")
        @SuppressWarnings("NullAway")
        void nullArguments() {
            assertThatThrownBy(() -> store.save(null).block(timeout()))
                    .isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class);
            assertThatThrownBy(() -> store.load(null).block(timeout()))
                    .isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class);
        }

        @Test
        @DisplayName("a snapshot cannot be built with a version below 1")
        void versionMustBePositive() {
            AggregateId id = AggregateId.of(ACCOUNT, "acc-fixed");
            for (int version : new int[] {0, -3}) {
                assertThatThrownBy(() -> new Snapshot(id, version, new AccountState("o", 0, 0, false), Instant.now()))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("version")
                        .hasMessageContaining(": " + version);
            }
        }
    }
}
