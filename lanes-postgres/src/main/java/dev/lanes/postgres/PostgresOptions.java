package dev.lanes.postgres;

import java.time.Duration;
import java.util.Objects;

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
 */
public record PostgresOptions(
        int poolSize, Duration connectTimeout, Duration socketTimeout, int pageSize, String applicationName) {

    /** 10 connections, 5 s to connect, 30 s per round trip, pages of 500 streams, application name {@code lanes}. */
    public static final PostgresOptions DEFAULT =
            new PostgresOptions(10, Duration.ofSeconds(5), Duration.ofSeconds(30), 500, "lanes");

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
    }

    private static void requireWholeSeconds(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.toSeconds() < 1) {
            throw new IllegalArgumentException(name + " must be at least 1 second: " + value);
        }
    }

    public PostgresOptions withPoolSize(int poolSize) {
        return new PostgresOptions(poolSize, connectTimeout, socketTimeout, pageSize, applicationName);
    }

    public PostgresOptions withTimeouts(Duration connectTimeout, Duration socketTimeout) {
        return new PostgresOptions(poolSize, connectTimeout, socketTimeout, pageSize, applicationName);
    }

    public PostgresOptions withPageSize(int pageSize) {
        return new PostgresOptions(poolSize, connectTimeout, socketTimeout, pageSize, applicationName);
    }

    public PostgresOptions withApplicationName(String applicationName) {
        return new PostgresOptions(poolSize, connectTimeout, socketTimeout, pageSize, applicationName);
    }
}
