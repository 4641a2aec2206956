package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.CommandRefusal;
import dev.lanes.eventsourcing.DuplicateAggregateIdException;
import dev.lanes.eventsourcing.DuplicateRequestIdException;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventVersionConflictException;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The behaviour every {@link EventStore} must show. Extend it, implement {@link #createStore()}, and run it with your
 * other tests:
 *
 * <pre>{@code
 * class PostgresEventStoreContractTest extends EventStoreContract {
 *     @Override
 *     protected EventStore createStore() {
 *         return new PostgresEventStore(dataSource);
 *     }
 * }
 * }</pre>
 *
 * <p>Every test works on fresh random aggregate ids, so the store may be shared between tests (one database for the
 * whole suite). Payloads are the public records nested here ({@link Opened}, {@link Deposited}, {@link Withdrawn}):
 * plain records of strings, longs, ints and booleans that a serializing store must round-trip to equal values. A
 * stream's {@code createdAt} is truncated to milliseconds and must come back equal. The {@code readAll} tests read the
 * whole store after its last position, keeping their own aggregates: every stream a shared store holds must be
 * readable by this JVM (keep tests that store unreadable payloads in a store of their own).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
public abstract class EventStoreContract {

    /** The aggregate type of the contract's streams. */
    protected static final NamedAggregate ACCOUNT = NamedAggregate.of("contract", "account");

    /** A second aggregate type, for reads of some types only. */
    protected static final NamedAggregate CARD = NamedAggregate.of("contract", "card");

    /** Opens an account. */
    public record Opened(String owner, int tier, boolean vip) {}

    /** Money in. */
    public record Deposited(long amount) {}

    /** Money out. */
    public record Withdrawn(long amount, String reason) {}

    private EventStore store;

    /**
     * The store under test, called once per test. It may be shared between calls (e.g. one database): the tests only
     * use aggregate ids they generate.
     */
    protected abstract EventStore createStore();

    /** How long one store operation may take before the test fails. */
    protected Duration timeout() {
        return Duration.ofSeconds(10);
    }

    /** How long a whole concurrent scenario may take before the test fails. */
    protected Duration concurrentScenarioTimeout() {
        return Duration.ofSeconds(60);
    }

    @BeforeEach
    void setUpStore() {
        store = createStore();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // fixtures

    /** A fresh aggregate id that no other test (or run) uses. */
    protected static AggregateId newAggregateId() {
        return AggregateId.of(ACCOUNT, "acc-" + UUID.randomUUID());
    }

    /** A stream with a fresh request id, command id and stream id, its payloads numbered from 1. */
    protected static DomainEventStream stream(AggregateId aggregateId, int version, Object... payloads) {
        return stream(aggregateId, version, "req-" + UUID.randomUUID(), payloads);
    }

    /** A stream with the given request id and fresh stream and command ids. */
    protected static DomainEventStream stream(
            AggregateId aggregateId, int version, String requestId, Object... payloads) {
        List<DomainEvent> events = new ArrayList<>(payloads.length);
        for (Object payload : payloads) {
            events.add(new DomainEvent(events.size() + 1, payload));
        }
        return new DomainEventStream(
                "stream-" + UUID.randomUUID(),
                aggregateId,
                version,
                requestId,
                "cmd-" + UUID.randomUUID(),
                events,
                Instant.now().truncatedTo(ChronoUnit.MILLIS),
                Map.of("source", "contract", "fixtureVersion", Integer.toString(version)));
    }

    private void append(DomainEventStream stream) {
        StepVerifier.create(store.append(stream)).expectComplete().verify(timeout());
    }

    /** Appends versions 1..count (one deposit each) and returns them. */
    private List<DomainEventStream> appendVersions(AggregateId aggregateId, int count) {
        List<DomainEventStream> appended = new ArrayList<>(count);
        for (int version = 1; version <= count; version++) {
            DomainEventStream stream = stream(aggregateId, version, new Deposited(version * 10L));
            append(stream);
            appended.add(stream);
        }
        return appended;
    }

    private List<DomainEventStream> loadAll(AggregateId aggregateId) {
        return present(store.load(aggregateId, 1).collectList().block(timeout()), "streams of " + aggregateId);
    }

    /** The value a completed {@code Mono} emitted; fails the test if it completed empty. */
    private static <T> T present(@Nullable T value, String what) {
        if (value == null) {
            throw new AssertionError(what + ": expected a value, the publisher completed empty");
        }
        return value;
    }

    private static List<Integer> versions(List<DomainEventStream> streams) {
        return streams.stream().map(DomainEventStream::version).toList();
    }

    private static List<Integer> versionsFromTo(int from, int to) {
        return IntStream.rangeClosed(from, to).boxed().toList();
    }

    /** Compares field by field first so a failure names the field that a store lost or changed. */
    private static void assertSameStreams(List<DomainEventStream> actual, List<DomainEventStream> expected) {
        assertThat(versions(actual)).as("versions").containsExactlyElementsOf(versions(expected));
        for (int i = 0; i < expected.size(); i++) {
            DomainEventStream a = actual.get(i);
            DomainEventStream e = expected.get(i);
            String where = e.aggregateId() + " v" + e.version();
            assertThat(a.id()).as("id of %s", where).isEqualTo(e.id());
            assertThat(a.aggregateId()).as("aggregateId of %s", where).isEqualTo(e.aggregateId());
            assertThat(a.version()).as("version of %s", where).isEqualTo(e.version());
            assertThat(a.requestId()).as("requestId of %s", where).isEqualTo(e.requestId());
            assertThat(a.commandId()).as("commandId of %s", where).isEqualTo(e.commandId());
            assertThat(a.createdAt()).as("createdAt of %s", where).isEqualTo(e.createdAt());
            assertThat(a.headers()).as("headers of %s", where).isEqualTo(e.headers());
            assertThat(a.events()).as("events of %s", where).hasSameSizeAs(e.events());
            for (int j = 0; j < e.events().size(); j++) {
                DomainEvent ae = a.events().get(j);
                DomainEvent ee = e.events().get(j);
                assertThat(ae.sequence())
                        .as("sequence of event %d of %s", j + 1, where)
                        .isEqualTo(ee.sequence());
                assertThat(ae.payload())
                        .as("payload of event %d of %s", j + 1, where)
                        .isInstanceOf(ee.payload().getClass())
                        .isEqualTo(ee.payload());
            }
            assertThat(a).as("stream %s", where).isEqualTo(e);
        }
    }

    private void assertStored(AggregateId aggregateId, List<DomainEventStream> expected) {
        assertSameStreams(loadAll(aggregateId), expected);
    }

    /** The message without the aggregate id, so that digits of a random id cannot satisfy a version check. */
    /** A non-recoverable {@link DuplicateRequestIdException} naming the aggregate and the request id. */
    private static void assertDuplicateRequestId(Throwable e, AggregateId id, String requestId) {
        assertThat(e).isInstanceOf(DuplicateRequestIdException.class);
        DuplicateRequestIdException duplicate = (DuplicateRequestIdException) e;
        assertThat(duplicate.isRecoverable()).isFalse();
        assertThat(duplicate.requestId()).isEqualTo(requestId);
        assertThat(duplicate.aggregateId()).isEqualTo(id);
        assertThat(duplicate).hasMessageContaining(requestId);
    }

    private static String withoutId(Throwable error, AggregateId aggregateId) {
        String message = String.valueOf(error.getMessage());
        return message.replace(aggregateId.toString(), "<aggregate>").replace(aggregateId.id(), "<id>");
    }

    private static Pattern number(int value) {
        return Pattern.compile("(?<![\\w-])" + Pattern.quote(Integer.toString(value)) + "(?!\\w)");
    }

    private static void assertRejectedNullArgument(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class);
    }

    /**
     * Runs one task per thread, all released together, and returns their results in task order. A task's exception
     * fails the test with that exception as the cause.
     */
    private <T> List<T> runConcurrently(int threads, IntFunction<Callable<T>> task) throws InterruptedException {
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<T> results = new ArrayList<>(threads);
        try {
            List<Future<T>> futures = new ArrayList<>(threads);
            for (int t = 0; t < threads; t++) {
                Callable<T> body = task.apply(t);
                futures.add(pool.submit(() -> {
                    start.await(timeout().toMillis(), TimeUnit.MILLISECONDS);
                    return body.call();
                }));
            }
            long deadline = System.nanoTime() + concurrentScenarioTimeout().toNanos();
            for (Future<T> future : futures) {
                try {
                    results.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    throw new AssertionError("a concurrent task failed: " + e.getCause(), e.getCause());
                } catch (TimeoutException e) {
                    throw new AssertionError(
                            "the concurrent scenario did not finish within " + concurrentScenarioTimeout(), e);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new AssertionError("concurrent tasks did not stop after the scenario");
        }
        return results;
    }

    // ---------------------------------------------------------------------------------------------------------------

    @Nested
    @DisplayName("Appending and loading")
    public class AppendingAndLoading {

        @Test
        @DisplayName("a stream loads back with every field, its events and their payloads preserved")
        void roundTripsEveryField() {
            AggregateId id = AggregateId.of(ACCOUNT, "acc-" + UUID.randomUUID(), "tenant-" + UUID.randomUUID());
            DomainEventStream first = new DomainEventStream(
                    "stream-" + UUID.randomUUID(),
                    id,
                    1,
                    "req-" + UUID.randomUUID(),
                    "cmd-" + UUID.randomUUID(),
                    List.of(
                            new DomainEvent(1, new Opened("Ada Lovelace", 3, true)),
                            new DomainEvent(2, new Deposited(Long.MAX_VALUE)),
                            new DomainEvent(3, new Withdrawn(-42L, "fee \"quoted\", unicode \u00e9\u4e2d\n"))),
                    Instant.now().truncatedTo(ChronoUnit.MILLIS),
                    Map.of("traceId", "t-" + UUID.randomUUID(), "user", "ada", "empty", ""));
            DomainEventStream second = new DomainEventStream(
                    "stream-" + UUID.randomUUID(),
                    id,
                    2,
                    "req-" + UUID.randomUUID(),
                    "cmd-" + UUID.randomUUID(),
                    List.of(new DomainEvent(1, new Opened("", 0, false))),
                    Instant.parse("2001-02-03T04:05:06.789Z"),
                    Map.of());

            append(first);
            append(second);

            assertStored(id, List.of(first, second));
        }

        @Test
        @DisplayName("streams load back in version order")
        void loadsInVersionOrder() {
            AggregateId id = newAggregateId();
            List<DomainEventStream> appended = appendVersions(id, 7);

            assertStored(id, appended);
            StepVerifier.create(store.load(id, 1).map(DomainEventStream::version))
                    .expectNext(1, 2, 3, 4, 5, 6, 7)
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("a stream with several events is stored and loaded as one version, its events in order")
        void multiEventStream() {
            AggregateId id = newAggregateId();
            DomainEventStream opening = stream(
                    id,
                    1,
                    new Opened("owner", 1, false),
                    new Deposited(100),
                    new Withdrawn(30, "atm"),
                    new Deposited(5),
                    new Withdrawn(1, "fee"),
                    new Deposited(7));
            DomainEventStream next = stream(id, 2, new Deposited(9));
            append(opening);
            append(next);

            StepVerifier.create(store.load(id, 1, 1))
                    .assertNext(loaded -> {
                        assertThat(loaded.events())
                                .extracting(DomainEvent::sequence)
                                .containsExactly(1, 2, 3, 4, 5, 6);
                        assertThat(loaded.payloads())
                                .containsExactly(
                                        new Opened("owner", 1, false),
                                        new Deposited(100),
                                        new Withdrawn(30, "atm"),
                                        new Deposited(5),
                                        new Withdrawn(1, "fee"),
                                        new Deposited(7));
                        assertThat(loaded).isEqualTo(opening);
                    })
                    .expectComplete()
                    .verify(timeout());
            assertStored(id, List.of(opening, next));
        }

        @Test
        @DisplayName("an aggregate with no streams loads empty")
        void unknownAggregateIsEmpty() {
            StepVerifier.create(store.load(newAggregateId(), 1))
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.load(newAggregateId(), 1, 1))
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.load(newAggregateId(), 5, 9))
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("aggregates are independent, also with the same id under another aggregate type")
        void aggregatesAreIndependent() {
            String rawId = "acc-" + UUID.randomUUID();
            AggregateId account = AggregateId.of(ACCOUNT, rawId);
            AggregateId ledger = AggregateId.of(NamedAggregate.of("contract", "ledger"), rawId);
            List<DomainEventStream> accountStreams = appendVersions(account, 3);
            DomainEventStream ledgerStream = stream(ledger, 1, new Opened("ledger", 2, false));
            append(ledgerStream);

            assertStored(account, accountStreams);
            assertStored(ledger, List.of(ledgerStream));
        }

        @Test
        @DisplayName("append stores nothing until subscribed (so a retry resubscribes a fresh attempt)")
        void appendIsLazy() {
            AggregateId id = newAggregateId();
            DomainEventStream first = stream(id, 1, new Opened("lazy", 1, false));

            Mono<Void> pending = store.append(first);

            assertThat(loadAll(id)).as("streams stored before subscribing").isEmpty();
            StepVerifier.create(pending).expectComplete().verify(timeout());
            assertStored(id, List.of(first));
            StepVerifier.create(pending)
                    .expectError(DuplicateAggregateIdException.class)
                    .verify(timeout());
            assertStored(id, List.of(first));
        }
    }

    @Nested
    @DisplayName("Loading a version range")
    public class LoadingAVersionRange {

        private AggregateId id;
        private List<DomainEventStream> appended;

        @BeforeEach
        void appendFiveVersions() {
            id = newAggregateId();
            appended = appendVersions(id, 5);
        }

        private void assertLoads(int from, int to, List<Integer> expectedVersions) {
            List<DomainEventStream> loaded = present(
                    store.load(id, from, to).collectList().block(timeout()),
                    "load(" + id + ", " + from + ", " + to + ")");
            assertSameStreams(
                    loaded,
                    expectedVersions.stream()
                            .map(version -> appended.get(version - 1))
                            .toList());
        }

        @Test
        @DisplayName("from and to are inclusive")
        void inclusiveBounds() {
            assertLoads(1, 5, List.of(1, 2, 3, 4, 5));
            assertLoads(2, 4, List.of(2, 3, 4));
            assertLoads(1, 1, List.of(1));
            assertLoads(5, 5, List.of(5));
            assertLoads(3, 3, List.of(3));
        }

        @Test
        @DisplayName("a range reaching past the tail stops at the tail")
        void rangePastTheTail() {
            assertLoads(4, 100, List.of(4, 5));
            assertLoads(1, Integer.MAX_VALUE, List.of(1, 2, 3, 4, 5));
            assertLoads(5, 6, List.of(5));
        }

        @Test
        @DisplayName("a range entirely beyond the tail is empty")
        void rangeBeyondTheTail() {
            assertLoads(6, 6, List.of());
            assertLoads(6, 10, List.of());
            assertLoads(Integer.MAX_VALUE, Integer.MAX_VALUE, List.of());
        }

        @Test
        @DisplayName("the open-ended load starts at fromVersion")
        void openEndedLoad() {
            StepVerifier.create(store.load(id, 3).map(DomainEventStream::version))
                    .expectNext(3, 4, 5)
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.load(id, 6)).expectComplete().verify(timeout());
        }

        @Test
        @DisplayName("fromVersion below 1 is an IllegalArgumentException error signal naming the value")
        void fromVersionMustBePositive() {
            for (int from : new int[] {0, -7, Integer.MIN_VALUE}) {
                for (AggregateId aggregate : List.of(id, newAggregateId())) {
                    StepVerifier.create(store.load(aggregate, from, 3))
                            .expectErrorSatisfies(e -> assertThat(e)
                                    .isInstanceOf(IllegalArgumentException.class)
                                    .satisfies(error -> assertThat(withoutId(error, aggregate))
                                            .containsPattern(number(from))))
                            .verify(timeout());
                    StepVerifier.create(store.load(aggregate, from))
                            .expectError(IllegalArgumentException.class)
                            .verify(timeout());
                }
            }
        }

        @Test
        @DisplayName("toVersion below fromVersion is an IllegalArgumentException error signal naming both values")
        void toVersionMustNotBeBelowFromVersion() {
            for (AggregateId aggregate : List.of(id, newAggregateId())) {
                StepVerifier.create(store.load(aggregate, 4, 2))
                        .expectErrorSatisfies(e -> assertThat(e)
                                .isInstanceOf(IllegalArgumentException.class)
                                .satisfies(error -> assertThat(withoutId(error, aggregate))
                                        .containsPattern(number(4))
                                        .containsPattern(number(2))))
                        .verify(timeout());
            }
        }

        @Test
        @DisplayName("an unknown aggregate is empty for any valid range")
        void unknownAggregateRanges() {
            AggregateId unknown = newAggregateId();
            StepVerifier.create(store.load(unknown, 1, 5)).expectComplete().verify(timeout());
            StepVerifier.create(store.load(unknown, 2, Integer.MAX_VALUE))
                    .expectComplete()
                    .verify(timeout());
        }
    }

    @Nested
    @DisplayName("Versions are gapless")
    public class VersionsAreGapless {

        @Test
        @DisplayName(
                "appending version 3 when the tail is 1 fails with an IllegalArgumentException naming the versions")
        void gapIsRejected() {
            AggregateId id = newAggregateId();
            List<DomainEventStream> appended = appendVersions(id, 1);
            DomainEventStream gap = stream(id, 3, new Deposited(1), new Deposited(2));

            StepVerifier.create(store.append(gap))
                    .expectErrorSatisfies(e -> assertThat(e)
                            .isInstanceOf(IllegalArgumentException.class)
                            .satisfies(error -> assertThat(withoutId(error, id))
                                    .containsPattern(number(3))
                                    .containsPattern(number(1))))
                    .verify(timeout());

            assertStored(id, appended);
            StepVerifier.create(store.hasRequestId(id, gap.requestId()))
                    .expectNext(false)
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("a new aggregate cannot start above version 1")
        void newAggregateStartsAtOne() {
            AggregateId id = newAggregateId();

            StepVerifier.create(store.append(stream(id, 2, new Deposited(1))))
                    .expectError(IllegalArgumentException.class)
                    .verify(timeout());

            assertThat(loadAll(id)).isEmpty();
            DomainEventStream first = stream(id, 1, new Opened("after the gap", 1, false));
            append(first);
            assertStored(id, List.of(first));
        }

        @Test
        @DisplayName("the next version is still free after a rejected gap")
        void nextVersionStillFree() {
            AggregateId id = newAggregateId();
            List<DomainEventStream> appended = new ArrayList<>(appendVersions(id, 2));

            StepVerifier.create(store.append(stream(id, 4, new Deposited(4))))
                    .expectError(IllegalArgumentException.class)
                    .verify(timeout());
            StepVerifier.create(store.append(stream(id, 5, new Deposited(5))))
                    .expectError(IllegalArgumentException.class)
                    .verify(timeout());

            DomainEventStream third = stream(id, 3, new Deposited(3));
            append(third);
            appended.add(third);
            assertStored(id, appended);
        }
    }

    @Nested
    @DisplayName("Conflicting appends are rejected and change nothing")
    public class ConflictingAppends {

        @Test
        @DisplayName("version 1 taken: DuplicateAggregateIdException naming the aggregate, not recoverable")
        void duplicateAggregateId() {
            AggregateId id = newAggregateId();
            DomainEventStream winner = stream(id, 1, new Opened("first", 1, false));
            append(winner);
            DomainEventStream loser = stream(id, 1, new Opened("second", 2, true), new Deposited(5));

            StepVerifier.create(store.append(loser))
                    .expectErrorSatisfies(e -> {
                        assertThat(e).isInstanceOf(DuplicateAggregateIdException.class);
                        DuplicateAggregateIdException duplicate = (DuplicateAggregateIdException) e;
                        assertThat(duplicate.isRecoverable()).isFalse();
                        assertThat(duplicate.aggregateId()).isEqualTo(id);
                        assertThat(duplicate).hasMessageContaining(id.id());
                    })
                    .verify(timeout());

            assertStored(id, List.of(winner));
            StepVerifier.create(store.hasRequestId(id, loser.requestId()))
                    .expectNext(false)
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName(
                "a later version taken: recoverable EventVersionConflictException naming the aggregate and the versions")
        void versionConflict() {
            AggregateId id = newAggregateId();
            List<DomainEventStream> appended = appendVersions(id, 3);

            for (int taken : new int[] {3, 2}) {
                DomainEventStream loser = stream(id, taken, new Withdrawn(taken, "late"), new Deposited(1));
                StepVerifier.create(store.append(loser))
                        .expectErrorSatisfies(e -> {
                            assertThat(e).isInstanceOf(EventVersionConflictException.class);
                            EventVersionConflictException conflict = (EventVersionConflictException) e;
                            assertThat(conflict.isRecoverable()).isTrue();
                            assertThat(conflict.aggregateId()).isEqualTo(id);
                            assertThat(conflict.expectedVersion()).isEqualTo(taken);
                            assertThat(conflict.actualVersion())
                                    .as("actualVersion: the stored version, or -1 when unknown")
                                    .satisfiesAnyOf(
                                            actual -> assertThat(actual).isEqualTo(-1),
                                            actual -> assertThat(actual).isGreaterThanOrEqualTo(taken));
                            assertThat(conflict).hasMessageContaining(id.id());
                            assertThat(withoutId(conflict, id)).containsPattern(number(taken));
                        })
                        .verify(timeout());
                assertStored(id, appended);
                StepVerifier.create(store.hasRequestId(id, loser.requestId()))
                        .expectNext(false)
                        .expectComplete()
                        .verify(timeout());
            }
        }

        @Test
        @DisplayName("a request id already used on the aggregate: DuplicateRequestIdException naming the request id")
        void duplicateRequestId() {
            AggregateId id = newAggregateId();
            String requestId = "req-" + UUID.randomUUID();
            DomainEventStream first = stream(id, 1, requestId, new Opened("once", 1, false));
            append(first);
            DomainEventStream repeated = stream(id, 2, requestId, new Deposited(10), new Deposited(20));

            StepVerifier.create(store.append(repeated))
                    .expectErrorSatisfies(e -> assertDuplicateRequestId(e, id, requestId))
                    .verify(timeout());
            assertStored(id, List.of(first));

            // the rejected stream did not take version 2
            DomainEventStream second = stream(id, 2, new Deposited(10));
            append(second);
            assertStored(id, List.of(first, second));
        }

        @Test
        @DisplayName("the same request id on a different aggregate is allowed")
        void requestIdIsPerAggregate() {
            String requestId = "req-" + UUID.randomUUID();
            AggregateId one = newAggregateId();
            AggregateId other = newAggregateId();
            DomainEventStream onOne = stream(one, 1, requestId, new Opened("one", 1, false));
            DomainEventStream onOther = stream(other, 1, requestId, new Opened("other", 1, false));

            append(onOne);
            append(onOther);

            assertStored(one, List.of(onOne));
            assertStored(other, List.of(onOther));
        }

        @Test
        @DisplayName("re-appending the very same stream fails and stores nothing twice")
        void sameStreamTwice() {
            AggregateId id = newAggregateId();
            List<DomainEventStream> appended = appendVersions(id, 2);

            for (DomainEventStream again : appended) {
                StepVerifier.create(store.append(again))
                        .expectErrorSatisfies(e -> assertThat(e)
                                .isInstanceOfAny(
                                        DuplicateAggregateIdException.class,
                                        EventVersionConflictException.class,
                                        DuplicateRequestIdException.class))
                        .verify(timeout());
            }
            assertStored(id, appended);
        }
    }

    @Nested
    @DisplayName("Request ids")
    public class RequestIds {

        @Test
        @DisplayName("hasRequestId is true exactly for the request ids stored on that aggregate")
        void hasRequestId() {
            AggregateId id = newAggregateId();
            AggregateId other = newAggregateId();
            List<DomainEventStream> appended = appendVersions(id, 3);
            DomainEventStream onOther = stream(other, 1, new Opened("other", 1, false));
            append(onOther);

            for (DomainEventStream stream : appended) {
                StepVerifier.create(store.hasRequestId(id, stream.requestId()))
                        .expectNext(true)
                        .expectComplete()
                        .verify(timeout());
                StepVerifier.create(store.hasRequestId(other, stream.requestId()))
                        .expectNext(false)
                        .expectComplete()
                        .verify(timeout());
            }
            StepVerifier.create(store.hasRequestId(id, "req-" + UUID.randomUUID()))
                    .expectNext(false)
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.hasRequestId(id, onOther.requestId()))
                    .expectNext(false)
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(
                            store.hasRequestId(newAggregateId(), appended.get(0).requestId()))
                    .expectNext(false)
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("findByRequestId returns the stream stored for the request id, on that aggregate only")
        void findByRequestId() {
            AggregateId id = newAggregateId();
            AggregateId other = newAggregateId();
            List<DomainEventStream> appended = appendVersions(id, 3);
            DomainEventStream onOther = stream(other, 1, new Opened("other", 1, false));
            append(onOther);

            for (DomainEventStream stream : appended) {
                StepVerifier.create(store.findByRequestId(id, stream.requestId()))
                        .assertNext(found -> assertSameStreams(List.of(found), List.of(stream)))
                        .expectComplete()
                        .verify(timeout());
                StepVerifier.create(store.findByRequestId(other, stream.requestId()))
                        .expectComplete()
                        .verify(timeout());
            }
            StepVerifier.create(store.findByRequestId(id, "req-" + UUID.randomUUID()))
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.findByRequestId(id, onOther.requestId()))
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.findByRequestId(
                            newAggregateId(), appended.get(0).requestId()))
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("a multi-event stream comes back whole from findByRequestId, with its version")
        void findByRequestIdReturnsTheWholeStream() {
            AggregateId id = newAggregateId();
            append(stream(id, 1, new Opened("ann", 2, true)));
            DomainEventStream twoEvents = stream(id, 2, new Deposited(5), new Withdrawn(3, "fee"));
            append(twoEvents);

            StepVerifier.create(store.findByRequestId(id, twoEvents.requestId()))
                    .assertNext(found -> {
                        assertThat(found.version()).isEqualTo(2);
                        assertSameStreams(List.of(found), List.of(twoEvents));
                    })
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("after a second stream with the same request id is refused, findByRequestId returns the first:"
                + " what a resend of that request is answered with")
        void findByRequestIdAfterARefusedDuplicate() {
            AggregateId id = newAggregateId();
            String requestId = "req-" + UUID.randomUUID();
            DomainEventStream first = stream(id, 1, requestId, new Opened("once", 1, false));
            append(first);
            StepVerifier.create(store.append(stream(id, 2, requestId, new Deposited(10))))
                    .expectError(DuplicateRequestIdException.class)
                    .verify(timeout());

            StepVerifier.create(store.findByRequestId(id, requestId))
                    .assertNext(found -> assertSameStreams(List.of(found), List.of(first)))
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("a recorded refusal answers findRequest for its request id, on its aggregate only; the first"
                + " refusal stays")
        void refusalIsRemembered() {
            AggregateId id = newAggregateId();
            String requestId = "req-" + UUID.randomUUID();
            CommandRefusal first = refusal(id, requestId, "insufficient funds: 0 < 50", "hash-1");
            StepVerifier.create(store.recordRefusal(first)).expectComplete().verify(timeout());
            StepVerifier.create(store.recordRefusal(refusal(id, requestId, "a later reason", "hash-2")))
                    .expectComplete()
                    .verify(timeout());

            assertRefusal(id, requestId, first);
            StepVerifier.create(store.findRequest(newAggregateId(), requestId))
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.findByRequestId(id, requestId))
                    .as("a refusal is not a stream")
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("an append under a refused request id fails with DuplicateRequestIdException and stores nothing:"
                + " the refusal still answers it")
        void refusedRequestIdTakesNoStream() {
            AggregateId id = newAggregateId();
            DomainEventStream opened = stream(id, 1, new Opened("refusing", 1, false));
            append(opened);
            String requestId = "req-" + UUID.randomUUID();
            CommandRefusal refused = refusal(id, requestId, "insufficient funds: 0 < 50", null);
            StepVerifier.create(store.recordRefusal(refused)).expectComplete().verify(timeout());

            StepVerifier.create(store.append(stream(id, 2, requestId, new Deposited(50))))
                    .expectErrorSatisfies(e -> assertDuplicateRequestId(e, id, requestId))
                    .verify(timeout());
            assertStored(id, List.of(opened));
            assertRefusal(id, requestId, refused);

            // the version stays free, and the request id is refused on its aggregate only
            DomainEventStream second = stream(id, 2, new Deposited(10));
            append(second);
            AggregateId other = newAggregateId();
            DomainEventStream onOther = stream(other, 1, requestId, new Opened("other", 1, false));
            append(onOther);
            assertStored(id, List.of(opened, second));
            assertStored(other, List.of(onOther));
        }

        @Test
        @DisplayName("findRequest answers a stored stream, and the stream wins over a refusal of its request id")
        void storedStreamWinsOverARefusal() {
            AggregateId id = newAggregateId();
            DomainEventStream stored = stream(id, 1, new Opened("kept", 1, false));
            append(stored);
            StepVerifier.create(store.recordRefusal(refusal(id, stored.requestId(), "too late", null)))
                    .expectComplete()
                    .verify(timeout());

            StepVerifier.create(store.findRequest(id, stored.requestId()))
                    .assertNext(found -> {
                        assertThat(found.refusal()).isNull();
                        assertSameStreams(List.of(Objects.requireNonNull(found.stream())), List.of(stored));
                    })
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.findRequest(id, "req-" + UUID.randomUUID()))
                    .expectComplete()
                    .verify(timeout());
        }

        /** What {@code findRequest} answers for the request id: {@code refusal}, and no stream. */
        private void assertRefusal(AggregateId id, String requestId, CommandRefusal refusal) {
            StepVerifier.create(store.findRequest(id, requestId))
                    .assertNext(found -> {
                        assertThat(found.stream()).isNull();
                        assertThat(found.refusal()).isEqualTo(refusal);
                    })
                    .expectComplete()
                    .verify(timeout());
        }

        private static CommandRefusal refusal(
                AggregateId id, String requestId, String reason, @Nullable String commandHash) {
            return new CommandRefusal(
                    id,
                    requestId,
                    "cmd-" + UUID.randomUUID(),
                    "com.example.InsufficientFundsException",
                    reason,
                    commandHash,
                    Instant.now().truncatedTo(ChronoUnit.MICROS));
        }

        @Test
        @DisplayName("findByRequestId is lazy: nothing is read before subscription")
        void findByRequestIdIsLazy() {
            AggregateId id = newAggregateId();
            Mono<DomainEventStream> lookup = store.findByRequestId(id, "req-later");
            append(stream(id, 1, "req-later", new Opened("late", 1, false)));

            StepVerifier.create(lookup)
                    .assertNext(found -> assertThat(found.version()).isEqualTo(1))
                    .expectComplete()
                    .verify(timeout());
        }
    }

    @Nested
    @DisplayName("Concurrent appends")
    public class ConcurrentAppends {

        private static final int THREADS = 16;
        private static final int ROUNDS = 50;
        /**
         * A lost race means another writer took that version, so a correct store needs at most THREADS * ROUNDS + 1
         * attempts per round; more means the store keeps rejecting the version it reports as the next one.
         */
        private static final int MAX_ATTEMPTS_PER_ROUND = 10_000;

        /** The tail, loading only the streams after the version the caller already knows of. */
        private int tail(AggregateId id, int known) {
            return present(
                    store.load(id, known + 1)
                            .map(DomainEventStream::version)
                            .reduce(known, Math::max)
                            .block(timeout()),
                    "tail of " + id);
        }

        @Test
        @DisplayName("16 writers x 50 rounds of load-tail-append-next: versions exactly 1..800, one winner each,"
                + " nothing lost")
        void writersRacingForTheNextVersion() throws InterruptedException {
            AggregateId id = newAggregateId();
            Map<Integer, AtomicInteger> winsPerVersion = new ConcurrentHashMap<>();
            Map<Integer, String> winningStreamIds = new ConcurrentHashMap<>();
            Map<String, String> requestIdsByWinningStream = new ConcurrentHashMap<>();
            AtomicInteger lostRaces = new AtomicInteger();

            List<Integer> successesPerThread = runConcurrently(THREADS, thread -> () -> {
                int known = 0;
                int successes = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    String requestId = "req-t" + thread + "-r" + round + "-" + UUID.randomUUID();
                    for (int attempt = 1; ; attempt++) {
                        if (attempt > MAX_ATTEMPTS_PER_ROUND) {
                            throw new AssertionError("writer " + thread + " made no progress in round " + round
                                    + ": every append of the version after the loaded tail (" + known
                                    + ") is rejected as taken");
                        }
                        known = tail(id, known);
                        int next = known + 1;
                        DomainEventStream candidate =
                                stream(id, next, requestId, new Deposited(thread), new Deposited(round));
                        try {
                            store.append(candidate).block(timeout());
                        } catch (EventVersionConflictException | DuplicateAggregateIdException lost) {
                            lostRaces.incrementAndGet();
                            continue;
                        }
                        winsPerVersion
                                .computeIfAbsent(next, v -> new AtomicInteger())
                                .incrementAndGet();
                        winningStreamIds.put(next, candidate.id());
                        requestIdsByWinningStream.put(candidate.id(), requestId);
                        known = next;
                        successes++;
                        break;
                    }
                }
                return successes;
            });

            int total = THREADS * ROUNDS;
            assertThat(successesPerThread).as("successes per writer").containsOnly(ROUNDS);
            assertThat(winsPerVersion.keySet())
                    .as("versions some writer succeeded with")
                    .containsExactlyInAnyOrderElementsOf(versionsFromTo(1, total));
            assertThat(winsPerVersion)
                    .as("successes per version (%d races lost and retried)", lostRaces.get())
                    .allSatisfy((version, wins) -> assertThat(wins.get())
                            .as("successes at v%d", version)
                            .isEqualTo(1));

            List<DomainEventStream> stored = loadAll(id);
            assertThat(versions(stored)).as("stored versions").containsExactlyElementsOf(versionsFromTo(1, total));
            for (DomainEventStream s : stored) {
                assertThat(s.id()).as("stream at v%d", s.version()).isEqualTo(winningStreamIds.get(s.version()));
                assertThat(s.requestId())
                        .as("request id at v%d", s.version())
                        .isEqualTo(requestIdsByWinningStream.get(s.id()));
                assertThat(s.payloads()).hasSize(2);
            }
            Set<String> storedRequestIds =
                    stored.stream().map(DomainEventStream::requestId).collect(Collectors.toSet());
            assertThat(storedRequestIds)
                    .as("every successful request stored exactly once")
                    .hasSize(total)
                    .containsExactlyInAnyOrderElementsOf(new HashSet<>(requestIdsByWinningStream.values()));
        }

        @Test
        @DisplayName(
                "writers racing to create an aggregate: exactly one wins, the rest get DuplicateAggregateIdException")
        void racingCreates() throws InterruptedException {
            for (int race = 0; race < 10; race++) {
                AggregateId id = newAggregateId();
                List<DomainEventStream> candidates = IntStream.range(0, THREADS)
                        .mapToObj(t -> stream(id, 1, new Opened("writer " + t, t, t % 2 == 0)))
                        .toList();

                List<Boolean> won = runConcurrently(THREADS, t -> () -> {
                    try {
                        store.append(candidates.get(t)).block(timeout());
                        return true;
                    } catch (DuplicateAggregateIdException lost) {
                        assertThat(lost.aggregateId()).isEqualTo(id);
                        return false;
                    }
                });

                assertThat(won).as("winners of race %d", race).containsOnlyOnce(true);
                DomainEventStream winner = candidates.get(won.indexOf(true));
                assertStored(id, List.of(winner));
            }
        }

        @Test
        @DisplayName("writers racing for the same later version: exactly one wins, the rest get a version conflict")
        void racingForTheSameVersion() throws InterruptedException {
            for (int race = 0; race < 10; race++) {
                AggregateId id = newAggregateId();
                List<DomainEventStream> before = appendVersions(id, 2);
                List<DomainEventStream> candidates = IntStream.range(0, THREADS)
                        .mapToObj(t -> stream(id, 3, new Withdrawn(t, "writer " + t)))
                        .toList();

                List<Boolean> won = runConcurrently(THREADS, t -> () -> {
                    try {
                        store.append(candidates.get(t)).block(timeout());
                        return true;
                    } catch (EventVersionConflictException lost) {
                        assertThat(lost.expectedVersion()).isEqualTo(3);
                        return false;
                    }
                });

                assertThat(won).as("winners of race %d", race).containsOnlyOnce(true);
                List<DomainEventStream> expected = new ArrayList<>(before);
                expected.add(candidates.get(won.indexOf(true)));
                assertStored(id, expected);
            }
        }

        @Test
        @DisplayName("concurrent appends to different aggregates do not interfere")
        void differentAggregates() throws InterruptedException {
            List<AggregateId> ids =
                    IntStream.range(0, THREADS).mapToObj(t -> newAggregateId()).toList();

            List<List<DomainEventStream>> appended =
                    runConcurrently(THREADS, t -> () -> appendVersions(ids.get(t), ROUNDS));

            for (int t = 0; t < THREADS; t++) {
                assertStored(ids.get(t), appended.get(t));
            }
        }
    }

    @Nested
    @DisplayName("Long streams")
    public class LongStreams {

        private static final int LENGTH = 2_000;

        @Test
        @DisplayName("2,000 versions on one aggregate load back complete and in order")
        void longStreamLoadsCompleteAndOrdered() {
            AggregateId id = newAggregateId();
            for (int version = 1; version <= LENGTH; version++) {
                store.append(stream(id, version, new Deposited(version))).block(timeout());
            }

            // streamed, not collected: counts and checks order as the streams arrive
            AtomicInteger expectedNext = new AtomicInteger(1);
            StepVerifier.create(store.load(id, 1)
                            .map(stream -> stream.version() == expectedNext.getAndIncrement()
                                    && stream.payloads().equals(List.of(new Deposited(stream.version())))))
                    .thenConsumeWhile(inOrder -> inOrder)
                    .expectComplete()
                    .verify(timeout());
            assertThat(expectedNext.get() - 1).as("streams loaded").isEqualTo(LENGTH);

            StepVerifier.create(store.load(id, 1001, 1100).map(DomainEventStream::version))
                    .expectNextSequence(versionsFromTo(1001, 1100))
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.load(id, LENGTH - 2).map(DomainEventStream::version))
                    .expectNext(LENGTH - 2, LENGTH - 1, LENGTH)
                    .expectComplete()
                    .verify(timeout());
            StepVerifier.create(store.load(id, 1, LENGTH).count())
                    .expectNext((long) LENGTH)
                    .expectComplete()
                    .verify(timeout());
        }

        @Test
        @DisplayName("a load emits no more than requested and can be cancelled")
        void loadHonoursDemand() {
            AggregateId id = newAggregateId();
            appendVersions(id, 20);

            StepVerifier.create(store.load(id, 1).map(DomainEventStream::version), 0)
                    .expectSubscription()
                    .expectNoEvent(Duration.ofMillis(100))
                    .thenRequest(3)
                    .expectNext(1, 2, 3)
                    .expectNoEvent(Duration.ofMillis(100))
                    .thenRequest(2)
                    .expectNext(4, 5)
                    .thenCancel()
                    .verify(timeout());
        }
    }

    @Nested
    @DisplayName("Reading all streams in position order")
    public class ReadingAll {
        private static final int WRITERS = 8;
        private static final int VERSIONS_PER_WRITER = 40;

        /**
         * A position at or before the store's last readable stream (0 when it is empty): the contract may share its
         * store, so it reads from here and keeps only its own aggregates. Found by doubling, then halving.
         */
        private long tail() {
            long low = 0;
            long high = 1;
            while (hasStreamFrom(high)) {
                low = high;
                high *= 2;
            }
            while (high - low > 1) {
                long middle = low + (high - low) / 2;
                if (hasStreamFrom(middle)) {
                    low = middle;
                } else {
                    high = middle;
                }
            }
            return low;
        }

        private boolean hasStreamFrom(long position) {
            return Boolean.TRUE.equals(store.readAll(position, 1).hasElements().block(timeout()));
        }

        private List<PositionedStream> page(long from, int limit) {
            return present(store.readAll(from, limit).collectList().block(timeout()), "page from " + from);
        }

        /** Every stream readable from {@code from}, in pages of {@code limit}, of the given aggregates only. */
        private List<PositionedStream> readAllOf(long from, int limit, Set<AggregateId> aggregates) {
            List<PositionedStream> read = new ArrayList<>();
            long next = from;
            for (List<PositionedStream> page = page(next, limit); !page.isEmpty(); page = page(next, limit)) {
                next = page.get(page.size() - 1).position() + 1;
                page.stream()
                        .filter(positioned -> aggregates.contains(positioned.aggregateId()))
                        .forEach(read::add);
            }
            return read;
        }

        private static List<DomainEventStream> streamsOf(List<PositionedStream> read) {
            return read.stream().map(PositionedStream::stream).toList();
        }

        private static void assertIncreasing(List<PositionedStream> read) {
            for (int i = 1; i < read.size(); i++) {
                assertThat(read.get(i).position())
                        .as("position of %s after %s", read.get(i), read.get(i - 1))
                        .isGreaterThan(read.get(i - 1).position());
            }
        }

        @Test
        void streamsComeBackInTheOrderTheyWereAppendedWithIncreasingPositionsAcrossPages() {
            long from = tail();
            AggregateId first = newAggregateId();
            AggregateId second = newAggregateId();
            List<DomainEventStream> appended = List.of(
                    stream(first, 1, new Opened("ann", 1, false)),
                    stream(second, 1, new Opened("bob", 2, true)),
                    stream(first, 2, new Deposited(10), new Withdrawn(3, "fee")),
                    stream(second, 2, new Withdrawn(5, "atm")),
                    stream(first, 3, new Deposited(7)));
            appended.forEach(EventStoreContract.this::append);

            List<PositionedStream> read = readAllOf(from, 2, Set.of(first, second));

            assertIncreasing(read);
            assertThat(read)
                    .allSatisfy(
                            positioned -> assertThat(positioned.position()).isGreaterThanOrEqualTo(Math.max(1, from)));
            assertSameStreams(streamsOf(read), appended);
        }

        @Test
        void aPageHoldsAtMostItsLimitAndAPageFromBeyondTheLastPositionIsEmpty() {
            AggregateId id = newAggregateId();
            appendVersions(id, 3);
            long last = tail();

            assertThat(page(0, 2)).hasSizeLessThanOrEqualTo(2);
            assertThat(page(last, 10)).as("from the last position").hasSize(1);
            assertThat(page(last, 10).get(0).stream().aggregateId()).isEqualTo(id);
            assertThat(page(last + 1, 10)).as("beyond the last position").isEmpty();
        }

        @Test
        void aFollowerReadingWhileWritersAppendSeesEveryStreamOnceInPositionOrder() throws InterruptedException {
            long from = tail();
            List<AggregateId> ids =
                    IntStream.range(0, WRITERS).mapToObj(i -> newAggregateId()).toList();
            Set<AggregateId> mine = Set.copyOf(ids);
            int expected = WRITERS * VERSIONS_PER_WRITER;
            List<List<PositionedStream>> results = runConcurrently(WRITERS + 1, task -> () -> {
                if (task == WRITERS) {
                    return follow(from, mine, expected);
                }
                appendVersions(ids.get(task), VERSIONS_PER_WRITER);
                return List.<PositionedStream>of();
            });
            List<PositionedStream> followed = results.get(WRITERS);

            assertIncreasing(followed);
            assertThat(followed).as("streams followed").hasSize(expected);
            assertThat(followed.stream().map(PositionedStream::position).collect(Collectors.toSet()))
                    .as("no position twice")
                    .hasSize(expected);
            for (AggregateId id : ids) {
                assertThat(followed.stream()
                                .filter(positioned -> positioned.aggregateId().equals(id))
                                .map(PositionedStream::version)
                                .toList())
                        .as("versions of %s in position order", id)
                        .containsExactlyElementsOf(versionsFromTo(1, VERSIONS_PER_WRITER));
            }
            assertThat(readAllOf(from, 64, mine))
                    .as("a second reader after the writers ended reads the same")
                    .containsExactlyElementsOf(followed);
        }

        /** Reads on after the last position read, as a tracking processor does, until {@code expected} are seen. */
        private List<PositionedStream> follow(long from, Set<AggregateId> aggregates, int expected) {
            List<PositionedStream> followed = new ArrayList<>();
            long next = from;
            long deadline = System.nanoTime() + concurrentScenarioTimeout().toNanos();
            while (followed.size() < expected && System.nanoTime() < deadline) {
                List<PositionedStream> page = page(next, 16);
                if (page.isEmpty()) {
                    Thread.yield(); // nothing readable yet: the writers are still appending
                    continue;
                }
                next = page.get(page.size() - 1).position() + 1;
                page.stream()
                        .filter(positioned -> aggregates.contains(positioned.aggregateId()))
                        .forEach(followed::add);
            }
            return followed;
        }

        @Test
        void aReadOfSomeTypesReturnsOnlyTheirStreamsAndCountsOnlyThemAgainstTheLimit() {
            long from = tail() + 1; // after every stream stored before: the limit then counts this test's only
            AggregateId account = newAggregateId();
            AggregateId card = AggregateId.of(CARD, "card-" + UUID.randomUUID());
            append(stream(card, 1, new Opened("card", 1, false)));
            append(stream(account, 1, new Opened("ann", 1, false)));
            append(stream(card, 2, new Deposited(1)));
            append(stream(account, 2, new Deposited(2)));

            List<PositionedStream> accounts = present(
                    store.readAll(from, 2, Set.of(ACCOUNT.materialize()))
                            .collectList()
                            .block(timeout()),
                    "page");
            List<PositionedStream> cards = present(
                    store.readAll(from, 100, Set.of(CARD.materialize()))
                            .collectList()
                            .block(timeout()),
                    "page");

            assertThat(accounts)
                    .extracting(positioned -> positioned.aggregateId() + " v" + positioned.version())
                    .containsExactly(account + " v1", account + " v2");
            assertThat(cards)
                    .extracting(positioned -> positioned.aggregateId() + " v" + positioned.version())
                    .containsExactly(card + " v1", card + " v2");
            StepVerifier.create(store.readAll(0, 10, Set.of()))
                    .expectError(IllegalArgumentException.class)
                    .verify(timeout());
        }

        @Test
        void badArgumentsAreErrorSignalsNamingTheValue() {
            StepVerifier.create(store.readAll(-1, 10))
                    .expectErrorSatisfies(error -> assertThat(error)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("fromPosition")
                            .hasMessageContaining("-1"))
                    .verify(timeout());
            StepVerifier.create(store.readAll(0, 0))
                    .expectErrorSatisfies(error -> assertThat(error)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("limit")
                            .hasMessageContaining("0"))
                    .verify(timeout());
        }
    }

    @Nested
    @DisplayName("Bad input is rejected clearly")
    public class BadInput {

        private final AggregateId fixedId = AggregateId.of(ACCOUNT, "acc-fixed");

        @Test
        @DisplayName("a null stream is rejected with NullPointerException or IllegalArgumentException")
        @SuppressWarnings("NullAway")
        void nullStream() {
            assertRejectedNullArgument(() -> store.append(null).block(timeout()));
        }

        @Test
        @DisplayName("a null aggregate id is rejected on load and hasRequestId")
        @SuppressWarnings("NullAway")
        void nullAggregateId() {
            assertRejectedNullArgument(
                    () -> store.load(null, 1, 5).collectList().block(timeout()));
            assertRejectedNullArgument(() -> store.load(null, 1).collectList().block(timeout()));
            assertRejectedNullArgument(() -> store.hasRequestId(null, "req-1").block(timeout()));
            assertRejectedNullArgument(
                    () -> store.findByRequestId(null, "req-1").block(timeout()));
        }

        @Test
        @DisplayName("a null or blank request id is rejected by hasRequestId")
        @SuppressWarnings("NullAway")
        void badRequestIdOnHasRequestId() {
            AggregateId id = newAggregateId();
            appendVersions(id, 1);
            assertRejectedNullArgument(() -> store.hasRequestId(id, null).block(timeout()));
            assertThatThrownBy(() -> store.hasRequestId(id, " ").block(timeout()))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        @DisplayName("a null or blank request id is rejected by findByRequestId")
        @SuppressWarnings("NullAway")
        void badRequestIdOnFindByRequestId() {
            AggregateId id = newAggregateId();
            appendVersions(id, 1);
            assertRejectedNullArgument(() -> store.findByRequestId(id, null).block(timeout()));
            assertThatThrownBy(() -> store.findByRequestId(id, " ").block(timeout()))
                    .isInstanceOf(IllegalArgumentException.class);
        }

        private DomainEventStream streamWith(
                String id, int version, String requestId, String commandId, List<DomainEvent> events) {
            return new DomainEventStream(id, fixedId, version, requestId, commandId, events, Instant.now(), Map.of());
        }

        @Test
        @DisplayName("a stream cannot be built with a blank id, request id or command id")
        void blankStreamIds() {
            List<DomainEvent> events = List.of(new DomainEvent(1, new Deposited(1)));
            assertThatThrownBy(() -> streamWith(" ", 1, "r", "c", events))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageFindingMatch("\\bid\\b");
            assertThatThrownBy(() -> streamWith("s", 1, "", "c", events))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("requestId");
            assertThatThrownBy(() -> streamWith("s", 1, "r", "\t", events))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("commandId");
        }

        @Test
        @DisplayName("a stream cannot be built without events")
        void noEvents() {
            assertThatThrownBy(() -> streamWith("s", 1, "r", "c", List.of()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("event");
        }

        @Test
        @DisplayName("a stream cannot be built with a version below 1")
        void versionMustBePositive() {
            List<DomainEvent> events = List.of(new DomainEvent(1, new Deposited(1)));
            for (int version : new int[] {0, -1}) {
                assertThatThrownBy(() -> streamWith("s", version, "r", "c", events))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("version")
                        .hasMessageFindingMatch(number(version).pattern());
            }
        }

        @Test
        @DisplayName("an event cannot be built with a sequence below 1")
        void sequenceMustBePositive() {
            assertThatThrownBy(() -> new DomainEvent(0, new Deposited(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("sequence");
        }

        @Test
        @DisplayName("an aggregate id cannot be built with a blank id or tenant")
        void blankAggregateId() {
            assertThatThrownBy(() -> AggregateId.of(ACCOUNT, " "))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageFindingMatch("\\bid\\b");
            assertThatThrownBy(() -> AggregateId.of(ACCOUNT, ""))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageFindingMatch("\\bid\\b");
            assertThatThrownBy(() -> AggregateId.of(ACCOUNT, "acc-1", " "))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tenantId");
            assertThatThrownBy(() -> NamedAggregate.of(" ", "account"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("contextName");
        }
    }
}
