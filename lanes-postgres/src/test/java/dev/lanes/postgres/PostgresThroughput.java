package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.DomainEvent;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * PROCESSED commands per second through gateway + command dispatcher + {@link PostgresEventStore} (bank deposits over
 * 1,000 accounts), next to raw JDBC INSERTs of the same row shape against the same server in the same run: a batched
 * loop (one connection, 500 rows per batch and commit) and single-row autocommit inserts from as many threads as the
 * store has connections (one commit per row, like one append per command).
 *
 * <p>Each mode starts its own embedded PostgreSQL 14: {@code durable} with {@code fsync=on, synchronous_commit=on}
 * (PostgreSQL's defaults), {@code fsync-off} with {@code fsync=off, synchronous_commit=off} (the embedded server's
 * defaults, which the other tests use). Excluded from the default build (tag {@code benchmark}); run with
 *
 * <pre>
 * mvn -q -pl lanes-postgres verify -Dtest=PostgresThroughput -Dsurefire.excludedGroups=
 * </pre>
 *
 * The table goes to stdout and is appended to {@code lanes-postgres/target/postgres-throughput.txt}. It also gives the
 * JDBC round trips per measured command (statement executions and commits through the store's data source, the
 * gateway's request-id lookups included) and the command rate as a share of the raw batched rate.
 */
@Tag("benchmark")
class PostgresThroughput {
    private static final int ACCOUNTS = 1_000;
    private static final int WARMUP = Integer.getInteger("lanes.bench.warmup", 10_000);
    private static final int COMMANDS = Integer.getInteger("lanes.bench.commands", 40_000);
    private static final int IN_FLIGHT = Integer.getInteger("lanes.bench.inFlight", 256);
    private static final int POOL = Integer.getInteger("lanes.bench.pool", 10);
    private static final int RAW_ROWS = COMMANDS;
    private static final int BATCH = 500;
    private static final Duration TIMEOUT = Duration.ofMinutes(5);

    private static final String RAW_INSERT = "INSERT INTO lanes_event_streams (tenant_id, context_name,"
            + " aggregate_name, aggregate_id, version, stream_id, request_id, command_id, created_at, headers, events)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb))";

    // the raw batched rows take positions of their own (negative, never a transaction id): a batch is one
    // transaction, and the column's default (the transaction id) is unique per transaction
    private static final String RAW_BATCH_INSERT = "INSERT INTO lanes_event_streams (tenant_id, context_name,"
            + " aggregate_name, aggregate_id, version, stream_id, request_id, command_id, created_at, headers, events,"
            + " position) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb), ?)";

    /** JDBC round trips (statement executions and commits/rollbacks) made through the store's data source. */
    private static final java.util.concurrent.atomic.AtomicLong ROUND_TRIPS =
            new java.util.concurrent.atomic.AtomicLong();

    private static javax.sql.DataSource counting(javax.sql.DataSource delegate) {
        return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(
                PostgresThroughput.class.getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (p, m, a) -> {
                    Object result = invoke(m, delegate, a);
                    return result instanceof Connection c ? countingConnection(c) : result;
                });
    }

    private static Connection countingConnection(Connection connection) {
        return (Connection) java.lang.reflect.Proxy.newProxyInstance(
                PostgresThroughput.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                    if ((m.getName().equals("commit") || m.getName().equals("rollback"))
                            && !connection.getAutoCommit()) {
                        ROUND_TRIPS.incrementAndGet();
                    }
                    Object result = invoke(m, connection, a);
                    return result instanceof PreparedStatement s ? countingStatement(s) : result;
                });
    }

    private static PreparedStatement countingStatement(PreparedStatement statement) {
        return (PreparedStatement) java.lang.reflect.Proxy.newProxyInstance(
                PostgresThroughput.class.getClassLoader(), new Class<?>[] {PreparedStatement.class}, (p, m, a) -> {
                    if (m.getName().startsWith("execute")) {
                        ROUND_TRIPS.incrementAndGet();
                    }
                    return invoke(m, statement, a);
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private record Result(
            String mode,
            double commandsPerSecond,
            double p50Millis,
            double p99Millis,
            long retried,
            long parked,
            double batchedRowsPerSecond,
            double singleRowsPerSecond,
            double roundTripsPerCommand) {}

    @Test
    void throughput() throws Exception {
        List<Result> results = new ArrayList<>();
        results.add(run("durable", Map.of("fsync", "on", "synchronous_commit", "on")));
        results.add(run("fsync-off", Map.of("fsync", "off", "synchronous_commit", "off")));

        StringBuilder table = new StringBuilder();
        table.append(String.format(
                "%nPostgresThroughput: %d accounts, %d deposits measured after %d warm-up, %d in flight, pool %d,"
                        + " raw %d rows (batches of %d)%n",
                ACCOUNTS, COMMANDS, WARMUP, IN_FLIGHT, POOL, RAW_ROWS, BATCH));
        table.append(String.format(
                "| %-9s | %14s | %8s | %8s | %7s | %6s | %17s | %18s | %14s | %16s |%n",
                "mode",
                "commands/s",
                "p50 ms",
                "p99 ms",
                "retries",
                "parked",
                "raw batched rows/s",
                "raw 1-row commits/s",
                "round trips/cmd",
                "of raw batched"));
        for (Result r : results) {
            table.append(String.format(
                    "| %-9s | %,14.0f | %8.2f | %8.2f | %7d | %6d | %,17.0f | %,18.0f | %14.3f | %15.0f%% |%n",
                    r.mode(),
                    r.commandsPerSecond(),
                    r.p50Millis(),
                    r.p99Millis(),
                    r.retried(),
                    r.parked(),
                    r.batchedRowsPerSecond(),
                    r.singleRowsPerSecond(),
                    r.roundTripsPerCommand(),
                    100 * r.commandsPerSecond() / r.batchedRowsPerSecond()));
        }
        System.out.print(table);
        Files.createDirectories(Path.of("target"));
        Files.writeString(
                Path.of("target", "postgres-throughput.txt"),
                table,
                StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        for (Result r : results) {
            assertThat(r.parked()).isZero();
        }
    }

    private static Result run(String mode, Map<String, String> serverConfig) throws Exception {
        EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
        serverConfig.forEach(builder::setServerConfig);
        try (EmbeddedPostgres server = builder.start();
                PostgresEventStore pool = PostgresEventStore.connect(
                        "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres",
                        "postgres",
                        null,
                        PostgresOptions.DEFAULT.withPoolSize(POOL));
                PostgresEventStore store = new PostgresEventStore(
                        counting(pool.dataSource()),
                        new JacksonEventSerializer(),
                        PostgresOptions.DEFAULT.withPoolSize(POOL))) {
            pool.migrate();
            double commandsPerSecond;
            double[] latencies;
            long retried;
            long parked;
            double roundTrips;
            try (BankNode node = new BankNode("Bench", store).start()) {
                List<AggregateId> accounts = new ArrayList<>();
                for (int i = 0; i < ACCOUNTS; i++) {
                    accounts.add(Bank.account("bench-" + i));
                }
                Flux.fromIterable(accounts)
                        .flatMap(id -> node.gateway().send(id, new OpenAccount("o"), WaitStage.PROCESSED), IN_FLIGHT)
                        .blockLast(TIMEOUT);
                deposits(node, accounts, WARMUP, new long[WARMUP]);

                long[] nanos = new long[COMMANDS];
                long tripsBefore = ROUND_TRIPS.get();
                long started = System.nanoTime();
                deposits(node, accounts, COMMANDS, nanos);
                long elapsed = System.nanoTime() - started;
                commandsPerSecond = COMMANDS / (elapsed / 1e9);
                roundTrips = (ROUND_TRIPS.get() - tripsBefore) / (double) COMMANDS;
                latencies =
                        Arrays.stream(nanos).sorted().mapToDouble(n -> n / 1e6).toArray();
                retried = node.stats().retried();
                parked = node.stats().parked();
            }
            double batched = rawBatched(store);
            double single = rawSingleRowCommits(store);
            return new Result(
                    mode,
                    commandsPerSecond,
                    latencies[latencies.length / 2],
                    latencies[(int) (latencies.length * 0.99)],
                    retried,
                    parked,
                    batched,
                    single,
                    roundTrips);
        }
    }

    private static void deposits(BankNode node, List<AggregateId> accounts, int count, long[] nanos) {
        Flux.range(0, count)
                .flatMap(
                        i -> {
                            long sent = System.nanoTime();
                            return node.gateway()
                                    .send(accounts.get(i % ACCOUNTS), new Deposit(1 + i % 100), WaitStage.PROCESSED)
                                    .doOnNext(result -> nanos[i] = System.nanoTime() - sent);
                        },
                        IN_FLIGHT)
                .blockLast(TIMEOUT);
    }

    /** The JSON columns of one deposit stream, exactly as the store writes them. */
    private static final StreamCodec CODEC = new StreamCodec(new JacksonEventSerializer());

    private static final java.util.concurrent.atomic.AtomicLong RAW_POSITION =
            new java.util.concurrent.atomic.AtomicLong();

    private static void bindRow(PreparedStatement insert, String prefix, int row) throws SQLException {
        int aggregate = row % ACCOUNTS;
        insert.setString(1, AggregateId.DEFAULT_TENANT);
        insert.setString(2, "bank");
        insert.setString(3, "account");
        insert.setString(4, prefix + aggregate);
        insert.setInt(5, row / ACCOUNTS + 1);
        insert.setString(6, UUID.randomUUID().toString());
        insert.setString(7, UUID.randomUUID().toString());
        insert.setString(8, UUID.randomUUID().toString());
        insert.setObject(9, OffsetDateTime.now(ZoneOffset.UTC));
        insert.setString(10, CODEC.encodeHeaders(Map.of()));
        insert.setString(11, CODEC.encodeEvents(List.of(new DomainEvent(1, new Deposited(1 + row % 100, "")))));
    }

    private static double rawBatched(PostgresEventStore store) throws SQLException {
        String prefix = "raw-batch-" + UUID.randomUUID() + "-";
        try (Connection connection = store.dataSource().getConnection();
                PreparedStatement insert = connection.prepareStatement(RAW_BATCH_INSERT)) {
            connection.setAutoCommit(false);
            long started = System.nanoTime();
            for (int row = 0; row < RAW_ROWS; row++) {
                bindRow(insert, prefix, row);
                insert.setLong(12, -RAW_POSITION.incrementAndGet());
                insert.addBatch();
                if ((row + 1) % BATCH == 0 || row == RAW_ROWS - 1) {
                    insert.executeBatch();
                    connection.commit();
                }
            }
            double perSecond = RAW_ROWS / ((System.nanoTime() - started) / 1e9);
            connection.setAutoCommit(true);
            return perSecond;
        }
    }

    private static double rawSingleRowCommits(PostgresEventStore store) throws Exception {
        String prefix = "raw-single-" + UUID.randomUUID() + "-";
        AtomicInteger next = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(POOL);
        try {
            long started = System.nanoTime();
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < POOL; t++) {
                workers.add(threads.submit(() -> {
                    try (Connection connection = store.dataSource().getConnection();
                            PreparedStatement insert = connection.prepareStatement(RAW_INSERT)) {
                        // every row is a distinct (aggregate, version): plain inserts, no gap check, no conflicts
                        for (int row; (row = next.getAndIncrement()) < RAW_ROWS; ) {
                            bindRow(insert, prefix, row);
                            insert.executeUpdate();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get();
            }
            return RAW_ROWS / ((System.nanoTime() - started) / 1e9);
        } finally {
            threads.shutdownNow();
        }
    }
}
