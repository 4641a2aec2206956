package dev.lanes.spring;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * One real PostgreSQL per test JVM (embedded binaries from Maven jars, as lanes-postgres's tests use), started on first
 * use and stopped at JVM exit; each test takes a fresh database of its own.
 */
public final class EmbeddedDatabase {
    /** The superuser, trusted without a password. */
    public static final String USER = "postgres";

    private EmbeddedDatabase() {}

    private static final class Holder {
        static final EmbeddedPostgres SERVER = start();

        private static EmbeddedPostgres start() {
            try {
                EmbeddedPostgres server = EmbeddedPostgres.builder().start();
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

    /** The JDBC URL of a new, empty database. */
    public static String freshDatabaseUrl() {
        String name = "lanes_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = DriverManager.getConnection(url("postgres"), USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return url(name);
    }

    private static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + Holder.SERVER.getPort() + "/" + database;
    }
}
