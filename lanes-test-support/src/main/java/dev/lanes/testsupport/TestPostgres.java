package dev.lanes.testsupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * One real PostgreSQL per test JVM (zonky's embedded binaries from Maven jars, {@code max_connections} 300), started on
 * first use and stopped by a shutdown hook; each test takes a database of its own ({@link #emptyDatabase()}), so tests
 * of any module share the one server, whichever of them a JVM runs.
 *
 * <p>Thread-safe: the server starts once, under the class initialisation lock, on the first call of any method.
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
                throw new UncheckedIOException("TestPostgres: cannot start the embedded PostgreSQL", e);
            }
        }
    }

    /** The server's port on 127.0.0.1 (starts it on first use). */
    public static int port() {
        return Holder.SERVER.getPort();
    }

    /** The JDBC URL of a database of the server, by name ({@code postgres} is the one that always exists). */
    public static String url(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    /** Creates a fresh, empty database (no Lanes schema) and returns its name. */
    public static String createDatabase() {
        String name = "lanes_" + UUID.randomUUID().toString().replace("-", "");
        try (Connection connection = DriverManager.getConnection(url("postgres"), USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "TestPostgres: cannot create database " + name + " on port " + port() + ": " + e.getMessage(), e);
        }
        return name;
    }

    /** Creates a fresh, empty database (no Lanes schema) and returns its JDBC URL. */
    public static String emptyDatabase() {
        return url(createDatabase());
    }
}
