package dev.lanes.postgres;

import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * How a store talks to PostgreSQL.
 *
 * @param poolSize connections in the pool, and threads of the store's JDBC scheduler (one per connection, so a JDBC
 *     call never waits for a connection while another thread could use it); used when the store is built from a
 *     {@link javax.sql.DataSource} too
 * @param connectTimeout how long opening a connection, or waiting for a free one in the pool, may take before it fails
 *     with {@link PostgresUnavailableException} (whole seconds for the driver, at least 1)
 * @param socketTimeout how long one database round trip may stay silent before the connection is dropped and the call
 *     fails with {@link PostgresUnavailableException}: a stalled server or a half-open connection is an error, never a
 *     hang (whole seconds for the driver, at least 1)
 * @param pageSize streams read per query when loading; a load holds at most one page in memory
 * @param applicationName shown in {@code pg_stat_activity}
 * @param appendBatchSize the most streams the event store writes in one transaction (group commit, see {@link
 *     PostgresEventStore}); 1 writes every append in a transaction of its own. At most {@value #MAX_APPEND_BATCH_SIZE}:
 *     a stream's position is its transaction's id times 65,536 plus its place in its batch
 * @param appendBatchWait how long a writer of the event store may wait for a batch to fill while another batch is
 *     being written (an idle store never waits: an append finds a free writer and goes at once); zero never waits; at
 *     most 100 ms
 */
public record PostgresOptions(
        int poolSize,
        Duration connectTimeout,
        Duration socketTimeout,
        int pageSize,
        String applicationName,
        int appendBatchSize,
        Duration appendBatchWait) {

    /** The largest {@link #appendBatchSize()}. */
    public static final int MAX_APPEND_BATCH_SIZE = 65_535;

    /** The longest {@link #appendBatchWait()}. */
    public static final Duration MAX_APPEND_BATCH_WAIT = Duration.ofMillis(100);

    /**
     * 10 connections, 5 s to connect, 30 s per round trip, pages of 500 streams, application name {@code lanes},
     * batches of up to 64 appends that wait at most 1 ms to fill.
     */
    public static final PostgresOptions DEFAULT = new PostgresOptions(
            10, Duration.ofSeconds(5), Duration.ofSeconds(30), 500, "lanes", 64, Duration.ofMillis(1));

    /** With the default group commit (batches of up to 64 appends, waiting at most 1 ms). */
    public PostgresOptions(
            int poolSize, Duration connectTimeout, Duration socketTimeout, int pageSize, String applicationName) {
        this(poolSize, connectTimeout, socketTimeout, pageSize, applicationName, 64, Duration.ofMillis(1));
    }

    public PostgresOptions {
        if (poolSize < 1) {
            throw new IllegalArgumentException("poolSize must be positive: " + poolSize);
        }
        requireWholeSeconds(connectTimeout, "connectTimeout");
        requireWholeSeconds(socketTimeout, "socketTimeout");
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be positive: " + pageSize);
        }
        Objects.requireNonNull(applicationName, "applicationName");
        if (appendBatchSize < 1 || appendBatchSize > MAX_APPEND_BATCH_SIZE) {
            throw new IllegalArgumentException(
                    "appendBatchSize must be between 1 and " + MAX_APPEND_BATCH_SIZE + ": " + appendBatchSize);
        }
        Objects.requireNonNull(appendBatchWait, "appendBatchWait");
        if (appendBatchWait.isNegative() || appendBatchWait.compareTo(MAX_APPEND_BATCH_WAIT) > 0) {
            throw new IllegalArgumentException("appendBatchWait must be between 0 and 100 ms: " + appendBatchWait);
        }
    }

    private static void requireWholeSeconds(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.toSeconds() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 second: " + value);
        }
    }

    /**
     * {@link #DEFAULT} with the pool size of a data source the caller owns: a {@code HikariDataSource}'s maximum pool
     * size, else the default's. The store over it runs one thread per connection.
     */
    public static PostgresOptions sizedFor(DataSource dataSource) {
        return DEFAULT.withPoolSize(Jdbc.threadsFor(Objects.requireNonNull(dataSource, "dataSource")));
    }

    public PostgresOptions withPoolSize(int poolSize) {
        return new PostgresOptions(
                poolSize, connectTimeout, socketTimeout, pageSize, applicationName, appendBatchSize, appendBatchWait);
    }

    public PostgresOptions withTimeouts(Duration connectTimeout, Duration socketTimeout) {
        return new PostgresOptions(
                poolSize, connectTimeout, socketTimeout, pageSize, applicationName, appendBatchSize, appendBatchWait);
    }

    public PostgresOptions withPageSize(int pageSize) {
        return new PostgresOptions(
                poolSize, connectTimeout, socketTimeout, pageSize, applicationName, appendBatchSize, appendBatchWait);
    }

    public PostgresOptions withApplicationName(String applicationName) {
        return new PostgresOptions(
                poolSize, connectTimeout, socketTimeout, pageSize, applicationName, appendBatchSize, appendBatchWait);
    }

    /** Group commit of the event store: batches of up to {@code batchSize} appends, waiting at most {@code wait}. */
    public PostgresOptions withAppendBatching(int batchSize, Duration wait) {
        return new PostgresOptions(poolSize, connectTimeout, socketTimeout, pageSize, applicationName, batchSize, wait);
    }
}
