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

/** One real PostgreSQL per test JVM (embedded binaries from Maven jars); each test takes a fresh database. */
final class TestPostgres {
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

    /** A fresh, migrated database; returns its JDBC URL. */
    static String freshDatabase() {
        String name = "lanes_" + UUID.randomUUID().toString().replace("-", "");
        String admin = "jdbc:postgresql://127.0.0.1:" + Holder.SERVER.getPort() + "/postgres";
        try (Connection connection = DriverManager.getConnection(admin, "postgres", "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        String url = "jdbc:postgresql://127.0.0.1:" + Holder.SERVER.getPort() + "/" + name;
        try (PostgresEventStore store = connect(url, "migration")) {
            store.migrate();
        }
        return url;
    }

    /** A store of one instance: a pool of its own. */
    static PostgresEventStore connect(String url, String instance) {
        return PostgresEventStore.connect(
                url,
                "postgres",
                null,
                PostgresOptions.DEFAULT.withPoolSize(8).withApplicationName("lanes-" + instance));
    }
}
