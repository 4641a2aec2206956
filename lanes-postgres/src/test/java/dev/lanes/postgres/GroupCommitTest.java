package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.DuplicateAggregateIdException;
import dev.lanes.eventsourcing.DuplicateRequestIdException;
import dev.lanes.eventsourcing.EventVersionConflictException;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Group commit: appends gathered into one transaction, each stream still checked on its own; a stream the batch cannot
 * store fails alone, with the exception a single append gets; a batch whose commit is not acknowledged fails every one
 * of its streams as "outcome unknown".
 */
class GroupCommitTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable each : closing) {
            each.close();
        }
    }

    /** A migrated store of its own database: readAll sees only this test's streams. */
    private PostgresEventStore ownDatabase() {
        PostgresEventStore base = PostgresEventStore.connect(
                TestDatabase.jdbcUrl(TestDatabase.createDatabase()), TestDatabase.USER, null);
        closing.add(base);
        base.migrate();
        return base;
    }

    /**
     * The first connection the store takes waits for {@code gate} ({@code holding} counts down once it waits); every
     * commit fails after committing, without acknowledgement, while {@code loseCommits} is set.
     */
    private static final class HeldDataSource {
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicBoolean loseCommits = new AtomicBoolean();
        final AtomicInteger connections = new AtomicInteger();
        final AtomicInteger batches = new AtomicInteger();
        final AtomicInteger lookupBatches = new AtomicInteger();
        final CountDownLatch committing = new CountDownLatch(1);
        volatile CountDownLatch commitGate = new CountDownLatch(0);
        final DataSource dataSource;

        HeldDataSource(DataSource delegate) {
            dataSource = (DataSource) Proxy.newProxyInstance(
                    DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getConnection")) {
                            if (connections.getAndIncrement() == 0) {
                                holding.countDown();
                                assertThat(gate.await(30, TimeUnit.SECONDS)).isTrue();
                            }
                            return connection((Connection) invoke(method, delegate, args));
                        }
                        return invoke(method, delegate, args);
                    });
        }

        private Connection connection(Connection delegate) {
            return (Connection) Proxy.newProxyInstance(
                    Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        if (method.getName().equals("prepareStatement")
                                && String.valueOf(args[0]).contains("WITH ORDINALITY AS b(")) {
                            batches.incrementAndGet();
                        }
                        if (method.getName().equals("prepareStatement")
                                && String.valueOf(args[0]).contains("WITH ORDINALITY AS k(")) {
                            lookupBatches.incrementAndGet();
                        }
                        if (method.getName().equals("commit")) {
                            committing.countDown();
                            assertThat(commitGate.await(30, TimeUnit.SECONDS)).isTrue();
                        }
                        Object result = invoke(method, delegate, args);
                        if (method.getName().equals("commit") && loseCommits.get()) {
                            throw new SQLException("I/O error: connection reset after commit", "08006");
                        }
                        return result;
                    });
        }

        private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    private PostgresEventStore batching(HeldDataSource held, int poolSize, int batchSize) {
        PostgresEventStore store = new PostgresEventStore(
                held.dataSource,
                new JacksonEventSerializer(),
                PostgresOptions.DEFAULT.withPoolSize(poolSize).withAppendBatching(batchSize, Duration.ZERO));
        closing.add(0, store);
        return store;
    }

    private static DomainEventStream opened(AggregateId id, String requestId) {
        return DomainEventStream.of(
                CommandMessage.of(id, new OpenAccount("ann"), requestId), 1, List.of(new AccountOpened("ann")));
    }

    private static DomainEventStream deposited(AggregateId id, int version, String requestId) {
        return DomainEventStream.of(
                CommandMessage.of(id, new Deposit(version), requestId), version, List.of(new Deposited(version, "")));
    }

    private static Throwable outcome(CompletableFuture<Void> append) throws InterruptedException {
        try {
            append.get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException failed) {
            return failed.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no outcome within 30 s", e);
        }
    }

    @Test
    void aStreamThatConflictsFailsAloneAndItsNeighboursInTheBatchAreStored() throws Exception {
        PostgresEventStore base = ownDatabase();
        AggregateId fresh = Bank.account("fresh-" + UUID.randomUUID());
        AggregateId next = Bank.account("next-" + UUID.randomUUID());
        AggregateId conflicting = Bank.account("conflicting-" + UUID.randomUUID());
        AggregateId reusing = Bank.account("reusing-" + UUID.randomUUID());
        AggregateId reopened = Bank.account("reopened-" + UUID.randomUUID());
        AggregateId holder = Bank.account("holder-" + UUID.randomUUID());
        for (AggregateId id : List.of(next, conflicting, reusing, reopened)) {
            base.append(opened(id, "open-" + id.id())).block(TIMEOUT);
        }
        base.append(deposited(conflicting, 2, "first-deposit")).block(TIMEOUT);

        HeldDataSource held = new HeldDataSource(base.dataSource());
        PostgresEventStore store = batching(held, 1, 5);
        // the one writer is held on its connection: what is appended meanwhile queues, and its next batch takes it all
        CompletableFuture<Void> holding = store.append(opened(holder, "hold")).toFuture();
        assertThat(held.holding.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> stored1 =
                store.append(opened(fresh, "fresh-open")).toFuture();
        CompletableFuture<Void> versionTaken =
                store.append(deposited(conflicting, 2, "second-deposit")).toFuture();
        CompletableFuture<Void> stored2 =
                store.append(deposited(next, 2, "next-deposit")).toFuture();
        CompletableFuture<Void> requestReused =
                store.append(deposited(reusing, 2, "open-" + reusing.id())).toFuture();
        CompletableFuture<Void> aggregateTaken =
                store.append(opened(reopened, "open-again")).toFuture();
        held.gate.countDown();

        assertThat(outcome(holding)).isNull();
        assertThat(outcome(stored1)).isNull();
        assertThat(outcome(stored2)).isNull();
        assertThat(outcome(versionTaken))
                .isInstanceOf(EventVersionConflictException.class)
                .hasMessageContaining(conflicting.id());
        assertThat(outcome(requestReused))
                .isInstanceOf(DuplicateRequestIdException.class)
                .hasMessageContaining("open-" + reusing.id());
        assertThat(outcome(aggregateTaken)).isInstanceOf(DuplicateAggregateIdException.class);
        assertThat(held.batches).as("the five were written as one batch").hasValue(1);
        assertThat(held.connections).as("the held append, then the batch").hasValue(2);

        assertThat(base.load(fresh, 1).collectList().block(TIMEOUT)).hasSize(1);
        assertThat(base.load(next, 1)
                        .map(DomainEventStream::requestId)
                        .collectList()
                        .block(TIMEOUT))
                .containsExactly("open-" + next.id(), "next-deposit");
        assertThat(base.load(conflicting, 1)
                        .map(DomainEventStream::requestId)
                        .collectList()
                        .block(TIMEOUT))
                .containsExactly("open-" + conflicting.id(), "first-deposit");
        assertThat(base.load(reusing, 1).count().block(TIMEOUT)).isEqualTo(1);
        assertThat(base.load(reopened, 1)
                        .map(DomainEventStream::requestId)
                        .collectList()
                        .block(TIMEOUT))
                .containsExactly("open-" + reopened.id());
        List<PositionedStream> all = Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> base.readAll(0, 100).collectList().block(TIMEOUT), read -> read.size() == 8);
        assertThat(all).extracting(PositionedStream::position).isSorted().doesNotHaveDuplicates();
        assertThat(all.subList(all.size() - 2, all.size()))
                .extracting(PositionedStream::aggregateId)
                .as("the batch's streams, in the order they were appended, after the held one")
                .containsExactly(fresh, next);
    }

    @Test
    void aStreamTheServerRefusesFailsAloneWhenTheBatchIsRetriedStreamByStream() throws Exception {
        PostgresEventStore base = ownDatabase();
        HeldDataSource held = new HeldDataSource(base.dataSource());
        // a serializer that writes one payload as text PostgreSQL does not take as JSON: the batch fails as a whole
        EventSerializer jackson = new JacksonEventSerializer();
        EventSerializer broken = new EventSerializer() {
            @Override
            public String serialize(Object payload) {
                return payload instanceof AccountOpened opened && opened.owner().equals("bad")
                        ? "{not json"
                        : jackson.serialize(payload);
            }

            @Override
            public Object deserialize(String typeName, String json) {
                return jackson.deserialize(typeName, json);
            }
        };
        PostgresEventStore store = new PostgresEventStore(
                held.dataSource, broken, PostgresOptions.DEFAULT.withPoolSize(1).withAppendBatching(3, Duration.ZERO));
        closing.add(0, store);
        AggregateId good1 = Bank.account("good-" + UUID.randomUUID());
        AggregateId bad = Bank.account("bad-" + UUID.randomUUID());
        AggregateId good2 = Bank.account("good-" + UUID.randomUUID());

        CompletableFuture<Void> holding = store.append(opened(Bank.account("h-" + UUID.randomUUID()), "h"))
                .toFuture();
        assertThat(held.holding.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> first = store.append(opened(good1, "g1")).toFuture();
        CompletableFuture<Void> refused = store.append(DomainEventStream.of(
                        CommandMessage.of(bad, new OpenAccount("bad"), "b"), 1, List.of(new AccountOpened("bad"))))
                .toFuture();
        CompletableFuture<Void> last = store.append(opened(good2, "g2")).toFuture();
        held.gate.countDown();

        assertThat(outcome(holding)).isNull();
        assertThat(outcome(first)).isNull();
        assertThat(outcome(last)).isNull();
        assertThat(outcome(refused)).isInstanceOf(EventSerializationException.class);
        assertThat(held.batches).hasValue(1);
        assertThat(base.load(good1, 1).count().block(TIMEOUT)).isEqualTo(1);
        assertThat(base.load(good2, 1).count().block(TIMEOUT)).isEqualTo(1);
        assertThat(base.load(bad, 1).count().block(TIMEOUT)).isZero();
    }

    @Test
    void aBatchWhoseCommitIsNotAcknowledgedFailsEachStreamAsOutcomeUnknownAndIsStoredOnce() throws Exception {
        PostgresEventStore base = ownDatabase();
        HeldDataSource held = new HeldDataSource(base.dataSource());
        PostgresEventStore store = batching(held, 1, 3);
        List<AggregateId> ids = new ArrayList<>();
        CompletableFuture<Void> holding = store.append(opened(Bank.account("h-" + UUID.randomUUID()), "h"))
                .toFuture();
        assertThat(held.holding.await(30, TimeUnit.SECONDS)).isTrue();
        List<CompletableFuture<Void>> batch = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            AggregateId id = Bank.account("lost-" + i + "-" + UUID.randomUUID());
            ids.add(id);
            batch.add(store.append(opened(id, "open-" + i)).toFuture());
        }
        held.loseCommits.set(true); // the held append is a single statement in autocommit: no commit call
        held.gate.countDown();
        assertThat(outcome(holding)).isNull();

        for (CompletableFuture<Void> append : batch) {
            assertThat(outcome(append))
                    .isInstanceOf(PostgresUnavailableException.class)
                    .hasMessageContaining("in a batch of 3");
        }
        held.loseCommits.set(false);
        assertThat(held.batches).hasValue(1);
        for (int i = 0; i < 3; i++) {
            AggregateId id = ids.get(i);
            assertThat(base.load(id, 1).count().block(TIMEOUT)).isEqualTo(1);
            assertThat(base.findByRequestId(id, "open-" + i)
                            .map(DomainEventStream::version)
                            .block(TIMEOUT))
                    .as("what a lane's retry after an unknown outcome looks up")
                    .isEqualTo(1);
        }
    }

    @Test
    void concurrentAppendersOnManyAggregatesLoseAndDuplicateNothingAndAReaderFollowingThemMissesNothing() {
        PostgresEventStore base = ownDatabase();
        HeldDataSource held = new HeldDataSource(base.dataSource());
        held.gate.countDown();
        PostgresEventStore store = new PostgresEventStore(
                held.dataSource,
                new JacksonEventSerializer(),
                PostgresOptions.DEFAULT.withPoolSize(4).withAppendBatching(16, Duration.ofMillis(1)));
        closing.add(0, store);
        int aggregates = 64;
        int versions = 8;
        List<AggregateId> ids = new ArrayList<>();
        for (int i = 0; i < aggregates; i++) {
            ids.add(Bank.account("race-" + i + "-" + UUID.randomUUID()));
        }
        // a tracking reader: from just after the last position it read, while the appends go on
        List<PositionedStream> followed = new ArrayList<>();
        AtomicBoolean appending = new AtomicBoolean(true);
        CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
            long from = 0;
            while (appending.get() || followed.size() < aggregates * versions) {
                List<PositionedStream> page =
                        base.readAll(from, 50).collectList().block(TIMEOUT);
                if (!page.isEmpty()) {
                    followed.addAll(page);
                    from = page.get(page.size() - 1).position() + 1;
                } else if (!appending.get()) {
                    Thread.onSpinWait();
                }
            }
        });
        Flux.fromIterable(ids)
                .flatMap(
                        id -> Flux.range(1, versions)
                                .concatMap(v -> store.append(
                                        v == 1
                                                ? opened(id, "r-" + id.id() + "-1")
                                                : deposited(id, v, "r-" + id.id() + "-" + v))),
                        aggregates)
                .subscribeOn(Schedulers.parallel())
                .blockLast(Duration.ofSeconds(60));
        appending.set(false);
        reader.orTimeout(60, TimeUnit.SECONDS).join();

        assertThat(held.batches).as("appends were batched").hasPositiveValue();
        assertThat(followed).hasSize(aggregates * versions);
        assertThat(followed).extracting(PositionedStream::position).isSorted().doesNotHaveDuplicates();
        assertThat(followed)
                .extracting(each -> each.position() % PostgresEventStore.POSITIONS_PER_TRANSACTION)
                .as("each stream's place in its transaction: 1 to 16 in a batch, 0 appended alone")
                .allMatch(place -> place >= 0 && place <= 16);
        Map<AggregateId, List<Integer>> byAggregate = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (PositionedStream each : followed) {
            assertThat(seen.add(each.stream().id())).isTrue();
            byAggregate
                    .computeIfAbsent(each.aggregateId(), k -> new ArrayList<>())
                    .add(each.stream().version());
        }
        assertThat(byAggregate).hasSize(aggregates);
        byAggregate.values().forEach(stored -> assertThat(stored).containsExactly(1, 2, 3, 4, 5, 6, 7, 8));
        assertThat(base.readAll(0, 10_000).count().block(TIMEOUT)).isEqualTo(aggregates * versions);
    }

    @Test
    void lookupsOfRequestIdsGatheredWhileTheStoreIsBusyAreReadInOneStatementEachGettingItsOwnAnswer() throws Exception {
        PostgresEventStore base = ownDatabase();
        AggregateId first = Bank.account("first-" + UUID.randomUUID());
        AggregateId second = Bank.account("second-" + UUID.randomUUID());
        base.append(opened(first, "open-first")).block(TIMEOUT);
        base.append(opened(second, "open-second")).block(TIMEOUT);
        base.append(deposited(second, 2, "deposit-second")).block(TIMEOUT);
        HeldDataSource held = new HeldDataSource(base.dataSource());
        PostgresEventStore store = batching(held, 1, 8);

        CompletableFuture<DomainEventStream> holding =
                store.findByRequestId(first, "open-first").toFuture();
        assertThat(held.holding.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<DomainEventStream> deposit =
                store.findByRequestId(second, "deposit-second").toFuture();
        CompletableFuture<DomainEventStream> missing =
                store.findByRequestId(second, "never-sent").toFuture();
        CompletableFuture<DomainEventStream> otherAggregate =
                store.findByRequestId(first, "deposit-second").toFuture();
        CompletableFuture<DomainEventStream> open =
                store.findByRequestId(first, "open-first").toFuture();
        held.gate.countDown();

        assertThat(holding.get(30, TimeUnit.SECONDS).version()).isEqualTo(1);
        assertThat(deposit.get(30, TimeUnit.SECONDS))
                .satisfies(stream -> assertThat(stream.aggregateId()).isEqualTo(second))
                .satisfies(stream -> assertThat(stream.version()).isEqualTo(2))
                .satisfies(stream -> assertThat(stream.events()).hasSize(1));
        assertThat(missing.get(30, TimeUnit.SECONDS)).isNull();
        assertThat(otherAggregate.get(30, TimeUnit.SECONDS)).isNull();
        assertThat(open.get(30, TimeUnit.SECONDS).aggregateId()).isEqualTo(first);
        assertThat(held.lookupBatches).as("the four were read in one statement").hasValue(1);
    }

    /**
     * Batched lookups that first ran while the table held one stream, then again on the same connection once it holds
     * thousands: they still read the index. The driver makes the statement a named server-side one after five
     * executions, and PostgreSQL may then cache a generic plan chosen for the small table. For the join on all five
     * columns the lookup once was, that plan was a hash join over a sequential scan, and every later batch read the
     * whole table (11 ms a batch at 40,000 streams in the Kafka + PostgreSQL bench, two thirds of PostgreSQL's time);
     * the lookup's form now, a probe of the request-id key per lookup, keeps reading the index under it. Sequential
     * reads of the table are counted by the server's statistics, read once the store's connection closed and its
     * counts arrived.
     */
    @Test
    void batchedLookupsStillReadTheIndexOnceTheTableGrewFromWhereTheyFirstRan() throws Exception {
        String database = TestDatabase.createDatabase();
        PostgresEventStore store = PostgresEventStore.connect(
                TestDatabase.jdbcUrl(database),
                TestDatabase.USER,
                null,
                PostgresOptions.DEFAULT.withPoolSize(1).withAppendBatching(16, Duration.ofMillis(2)));
        store.migrate();
        AggregateId first = Bank.account("first");
        store.append(opened(first, "open-first")).block(TIMEOUT);
        // a batched append first, as in a running service: its session's temporary table is made now, not later (its
        // first making changes the search path, which would have PostgreSQL plan the cached statements again)
        Flux.range(0, 16)
                .flatMap(i -> store.append(opened(Bank.account("early-" + i), "open-early-" + i)))
                .blockLast(TIMEOUT);
        lookUpAtOnce(store, first, 20); // while the table holds 17 streams: plans cheap for a small table
        int grown = 4_000;
        Flux.range(0, grown)
                .flatMap(i -> store.append(opened(Bank.account("a" + i), "open-" + i)), 64)
                .blockLast(TIMEOUT);

        lookUpAtOnce(store, first, 20);
        store.close(); // its connection's statistics go to the server

        long[] counted = new long[2];
        Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> {
            try (Connection connection =
                            DriverManager.getConnection(TestDatabase.jdbcUrl(database), TestDatabase.USER, null);
                    Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SELECT n_tup_ins, seq_tup_read"
                            + " FROM pg_stat_user_tables WHERE relname = 'lanes_event_streams'")) {
                assertThat(row.next()).isTrue();
                counted[0] = row.getLong(1);
                counted[1] = row.getLong(2);
            }
            assertThat(counted[0]).as("inserts counted").isEqualTo(grown + 17L);
        });
        assertThat(counted[1])
                .as("rows of lanes_event_streams read sequentially (one full scan reads %d)", grown + 17)
                .isLessThan(grown);
    }

    @Test
    void aLongHistoryDoesNotMakeTheVersionCheckOrTheLookupReadIt() throws Exception {
        String database = TestDatabase.createDatabase();
        String url = TestDatabase.jdbcUrl(database);
        PostgresOptions batching = PostgresOptions.DEFAULT.withPoolSize(1).withAppendBatching(16, Duration.ofMillis(2));
        PostgresEventStore setUp = PostgresEventStore.connect(url, TestDatabase.USER, null, batching);
        setUp.migrate();
        int aggregates = 2_000;
        Flux.range(0, aggregates)
                .flatMap(i -> setUp.append(opened(Bank.account("short-" + i), "open-short-" + i)), 64)
                .blockLast(TIMEOUT);
        // statistics taken now say an aggregate has one stream, and stay so while one aggregate's history grows
        sql(url, "ANALYZE lanes_event_streams; ALTER TABLE lanes_event_streams SET (autovacuum_enabled = false)");
        AggregateId hot = Bank.account("hot");
        int history = 300;
        setUp.append(opened(hot, "hot-1")).block(TIMEOUT);
        for (int version = 2; version <= history; version++) {
            setUp.append(deposited(hot, version, "hot-" + version)).block(TIMEOUT);
        }
        setUp.close(); // its connection's statistics go to the server
        IndexReads before = indexReads(url, aggregates + history);

        PostgresEventStore store = PostgresEventStore.connect(url, TestDatabase.USER, null, batching);
        int rounds = 20;
        for (int round = 0; round < rounds; round++) {
            int version = history + 1 + round;
            int r = round;
            // the hot aggregate's next version in a batch with fresh aggregates
            Flux.range(0, 16)
                    .flatMap(i -> i == 0
                            ? store.append(deposited(hot, version, "hot-" + version))
                            : store.append(opened(Bank.account("fresh-" + r + "-" + i), "open-fresh-" + r + "-" + i)))
                    .blockLast(TIMEOUT);
        }
        lookUpAtOnce(store, hot, rounds);
        store.close();
        IndexReads after = indexReads(url, aggregates + history + rounds * 16L);
        // each of the 20 checks of the hot aggregate's previous version reads one entry, the fresh ones none, and
        // each of the 320 lookups of its request ids none; one read of its history through a key that does not lead
        // with what is looked for (which the statistics priced alike) reads 300
        assertThat(after.read() - before.read())
                .as(
                        "index entries of lanes_event_streams read by %d appends of a %d-stream aggregate among fresh"
                                + " ones and %d lookups of its request ids (before: %s; after: %s)",
                        rounds, history, rounds * 16, before, after)
                .isLessThan(history);
    }

    @Test
    void batchedAppendsStillProbeThePreviousVersionOnceTheTableGrewFromWhereTheyFirstRan() throws Exception {
        String database = TestDatabase.createDatabase();
        String url = TestDatabase.jdbcUrl(database);
        PostgresEventStore store = PostgresEventStore.connect(
                url,
                TestDatabase.USER,
                null,
                PostgresOptions.DEFAULT.withPoolSize(1).withAppendBatching(16, Duration.ofMillis(2)));
        store.migrate();
        // no analyze, so no re-planning after one, while the table grows: the one connection keeps the plan it made
        sql(url, "ALTER TABLE lanes_event_streams SET (autovacuum_enabled = false)");
        List<AggregateId> few = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            few.add(Bank.account("few-" + i));
        }
        int version = 1;
        // the first batch makes the session's temporary table (see the test above); the next ones run while the
        // table holds a few streams, where reading it all into a hash table is the cheap plan for the version check
        for (; version <= 10; version++) {
            appendAtOnce(store, few, version);
        }
        int grown = 4_000;
        Flux.range(0, grown) // first versions: no previous version to check
                .flatMap(i -> store.append(opened(Bank.account("a" + i), "open-" + i)), 64)
                .blockLast(TIMEOUT);
        int rounds = 20;
        for (int round = 0; round < rounds; round++) {
            appendAtOnce(store, few, version++);
        }
        store.close(); // its connection's statistics go to the server

        long inserted = (version - 1L) * few.size() + grown;
        IndexReads indexes = indexReads(url, inserted);
        long sequential = sequentialReads(url);
        // probing reads one entry per stream with a previous version (16 per batch); a hash table of the table reads
        // every stream once per batch
        assertThat(indexes.read() + sequential)
                .as(
                        "rows of lanes_event_streams read by %d batches of 16 appends at a %d-stream table,"
                                + " sequentially %d, through indexes (%s)",
                        rounds, inserted, sequential, indexes)
                .isLessThan(grown);
    }

    /** Appends version {@code version} of each aggregate at once (gathered into batches by the store). */
    private static void appendAtOnce(PostgresEventStore store, List<AggregateId> ids, int version) {
        Flux.fromIterable(ids)
                .flatMap(id -> store.append(
                        version == 1 ? opened(id, "open-" + id.id()) : deposited(id, version, id.id() + "-" + version)))
                .blockLast(TIMEOUT);
    }

    private static long sequentialReads(String url) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, TestDatabase.USER, null);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT seq_tup_read FROM pg_stat_user_tables WHERE relname = 'lanes_event_streams'")) {
            assertThat(row.next()).isTrue();
            return row.getLong(1);
        }
    }

    /** The index entries of lanes_event_streams read so far, once the server counted {@code inserted} rows. */
    private static IndexReads indexReads(String url, long inserted) {
        IndexReads[] reads = new IndexReads[1];
        Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> {
            try (Connection connection = DriverManager.getConnection(url, TestDatabase.USER, null);
                    Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery("SELECT (SELECT n_tup_ins FROM pg_stat_user_tables"
                            + " WHERE relname = 'lanes_event_streams'), sum(idx_tup_read), string_agg(indexrelname"
                            + " || ' ' || idx_scan || ' scans ' || idx_tup_read || ' read', ', ')"
                            + " FROM pg_stat_user_indexes WHERE relname = 'lanes_event_streams'")) {
                assertThat(row.next()).isTrue();
                assertThat(row.getLong(1)).as("inserts counted").isEqualTo(inserted);
                reads[0] = new IndexReads(row.getLong(2), row.getString(3));
            }
        });
        return reads[0];
    }

    private record IndexReads(long read, String byIndex) {
        @Override
        public String toString() {
            return byIndex;
        }
    }

    private static void sql(String url, String statements) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, TestDatabase.USER, null);
                Statement statement = connection.createStatement()) {
            statement.execute(statements);
        }
    }

    /** {@code rounds} times, 16 lookups at once (gathered into batches by the store's one connection). */
    private static void lookUpAtOnce(PostgresEventStore store, AggregateId id, int rounds) {
        for (int round = 0; round < rounds; round++) {
            int r = round;
            Flux.range(0, 16)
                    .flatMap(i -> store.findByRequestId(id, "never-sent-" + r + "-" + i))
                    .then()
                    .block(TIMEOUT);
        }
    }

    @Test
    void aBatchInFlightHoldsReadersBeforeItsPositionsAndIsReadBeforeAnAppendCommittedAfterIt() throws Exception {
        PostgresEventStore base = ownDatabase();
        AggregateId before = Bank.account("before-" + UUID.randomUUID());
        base.append(opened(before, "before")).block(TIMEOUT);
        HeldDataSource held = new HeldDataSource(base.dataSource());
        held.commitGate = new CountDownLatch(1);
        PostgresEventStore store = batching(held, 1, 2);
        AggregateId first = Bank.account("first-" + UUID.randomUUID());
        AggregateId second = Bank.account("second-" + UUID.randomUUID());
        AggregateId later = Bank.account("later-" + UUID.randomUUID());

        CompletableFuture<Void> holding = store.append(opened(Bank.account("h-" + UUID.randomUUID()), "h"))
                .toFuture();
        assertThat(held.holding.await(30, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> batch = CompletableFuture.allOf(
                store.append(opened(first, "first")).toFuture(),
                store.append(opened(second, "second")).toFuture());
        held.gate.countDown();
        assertThat(outcome(holding)).isNull();
        // the batch has inserted its rows and waits for its commit; an append alone commits meanwhile
        assertThat(held.committing.await(30, TimeUnit.SECONDS)).isTrue();
        base.append(opened(later, "later")).block(TIMEOUT);

        List<PositionedStream> meanwhile = base.readAll(0, 100).collectList().block(TIMEOUT);
        assertThat(meanwhile)
                .extracting(PositionedStream::aggregateId)
                .as("nothing past the open batch is readable")
                .doesNotContain(later, first, second);
        long from =
                meanwhile.isEmpty() ? 0 : meanwhile.get(meanwhile.size() - 1).position() + 1;
        held.commitGate.countDown();
        assertThat(outcome(batch)).isNull();

        List<PositionedStream> after = Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> base.readAll(from, 100).collectList().block(TIMEOUT), read -> read.size() >= 3);
        assertThat(after)
                .extracting(PositionedStream::aggregateId)
                .as("a reader going on from where it stopped reads the batch, then what committed after it")
                .endsWith(first, second, later);
    }

    @Test
    void theBatchSettingsAreCheckedAtConstructionNamingTheValue() {
        PostgresOptions options = PostgresOptions.DEFAULT;
        assertThatThrownBy(() -> options.withAppendBatching(0, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("appendBatchSize must be between 1 and 65535: 0");
        assertThatThrownBy(() -> options.withAppendBatching(65_536, Duration.ZERO))
                .hasMessage("appendBatchSize must be between 1 and 65535: 65536");
        assertThatThrownBy(() -> options.withAppendBatching(8, Duration.ofMillis(-1)))
                .hasMessage("appendBatchWait must be between 0 and 100 ms: PT-0.001S");
        assertThatThrownBy(() -> options.withAppendBatching(8, Duration.ofMillis(101)))
                .hasMessage("appendBatchWait must be between 0 and 100 ms: PT0.101S");
        assertThat(options.appendBatchSize()).isEqualTo(64);
        assertThat(options.appendBatchWait()).isEqualTo(Duration.ofMillis(1));
    }
}
