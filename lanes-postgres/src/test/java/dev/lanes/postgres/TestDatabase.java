package dev.lanes.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * One real PostgreSQL per test JVM (embedded binaries from Maven jars), started on first use and stopped at JVM exit,
 * with one migrated {@link PostgresEventStore} that tests may share (they use fresh aggregate ids).
 */
final class TestDatabase {
    static final String USER = "postgres";

    private TestDatabase() {}

    private static final class Holder {
        static final EmbeddedPostgres SERVER = start();
        static final PostgresEventStore STORE = sharedStore();

        private static EmbeddedPostgres start() {
            try {
                EmbeddedPostgres server = EmbeddedPostgres.builder()
                        .setServerConfig("max_connections", "300")
                        .start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        server.close();
                    } catch (IOException ignored) {
                        // the JVM is going away
                    }
                }));
                return server;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
            }
        }

        private static PostgresEventStore sharedStore() {
            PostgresEventStore store =
                    PostgresEventStore.connect(jdbcUrl(), USER, null, PostgresOptions.DEFAULT.withPoolSize(16));
            store.migrate();
            return store;
        }
    }

    static int port() {
        return Holder.SERVER.getPort();
    }

    /** The {@code postgres} database. */
    static String jdbcUrl() {
        return jdbcUrl("postgres");
    }

    static String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /** The shared, migrated store over a pool of 16 (closed at JVM exit). */
    static PostgresEventStore store() {
        return Holder.STORE;
    }

    /** A fresh, empty database; returns its name. */
    static String createDatabase() {
        String name = "lanes_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = DriverManager.getConnection(jdbcUrl(), USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return name;
    }
}
