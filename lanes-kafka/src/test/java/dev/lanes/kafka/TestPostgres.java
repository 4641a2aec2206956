package dev.lanes.kafka;

import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * One real PostgreSQL per test JVM (embedded binaries from Maven jars), started on first use and stopped at JVM exit;
 * each test takes a fresh database. Shared through this module's test jar with the CLI's and the Spring starter's tests,
 * so a test JVM starts one server, whichever of them it runs.
 */
public final class TestPostgres {
    /** The superuser, trusted without a password. */
    public static final String USER = "postgres";

    private TestPostgres() {}

    private static final class Holder {
        static final EmbeddedPostgres SERVER = start();

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
    }

    /** A fresh, empty database (no Lanes schema); returns its JDBC URL. */
    public static String emptyDatabase() {
        String name = "lanes_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = DriverManager.getConnection(url("postgres"), USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return url(name);
    }

    /** A fresh database with the Lanes schema; returns its JDBC URL. */
    public static String freshDatabase() {
        String url = emptyDatabase();
        try (PostgresEventStore store = connect(url, "migration")) {
            store.migrate();
        }
        return url;
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + Holder.SERVER.getPort() + "/" + database;
    }

    /** A store of one instance: a pool of its own. */
    static PostgresEventStore connect(String url, String instance) {
        return PostgresEventStore.connect(
                url, USER, null, PostgresOptions.DEFAULT.withPoolSize(8).withApplicationName("lanes-" + instance));
    }
}
