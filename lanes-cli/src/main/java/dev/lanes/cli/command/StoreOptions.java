package dev.lanes.cli.command;

import dev.lanes.cli.bank.Stores;
import dev.lanes.eventsourcing.InMemoryEventStore;
import dev.lanes.eventsourcing.InMemorySnapshotStore;
import dev.lanes.postgres.PostgresEventStore;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Where the bank's events and snapshots live: in memory (default) or in PostgreSQL. */
final class StoreOptions {

    enum Kind {
        MEMORY,
        POSTGRES
    }

    @Option(names = "--store", defaultValue = "memory", description = "memory or postgres (default: ${DEFAULT-VALUE}).")
    Kind kind = Kind.MEMORY;

    @Option(
            names = "--jdbc-url",
            paramLabel = "URL",
            description = "With --store postgres: e.g. jdbc:postgresql://127.0.0.1:5432/postgres")
    @Nullable
    String jdbcUrl;

    @Option(
            names = "--db-user",
            defaultValue = "postgres",
            description = "With --store postgres (default: ${DEFAULT-VALUE}).")
    String user = "postgres";

    @Option(names = "--db-password", description = "With --store postgres (default: none).")
    @Nullable
    String password;

    void validate(CommandSpec spec) {
        if (kind == Kind.POSTGRES && jdbcUrl == null) {
            throw new ParameterException(spec.commandLine(), "--store postgres needs --jdbc-url");
        }
        if (kind == Kind.MEMORY && jdbcUrl != null) {
            throw new ParameterException(spec.commandLine(), "--jdbc-url '" + jdbcUrl + "' needs --store postgres");
        }
    }

    /**
     * Opens the stores. For PostgreSQL: a fresh schema {@code lanes_run_<millis>} per run (kept afterwards for
     * inspection), so runs never see each other's accounts; then connects (failing fast, naming host and port) and
     * migrates.
     */
    Stores open() {
        if (kind == Kind.MEMORY || jdbcUrl == null) {
            return new Stores(
                    "memory", new InMemoryEventStore(), new InMemorySnapshotStore(), "in-memory event store", () -> {});
        }
        String schema = "lanes_run_" + System.currentTimeMillis();
        PostgresEventStore events = PostgresEventStore.connect(inFreshSchema(jdbcUrl, schema), user, password);
        events.migrate();
        return new Stores(
                "postgres",
                events,
                events.snapshotStore(),
                "PostgreSQL event store at " + events.server() + " (schema " + schema + ")",
                events::close);
    }

    private String inFreshSchema(String url, String schema) {
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(url, user, password);
                java.sql.Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(
                    "Cannot create schema " + schema + " through " + url + ": " + e.getMessage(), e);
        }
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }
}
