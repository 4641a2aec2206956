package dev.lanes.cli.command;

import dev.lanes.cli.bank.EventCodec;
import dev.lanes.cli.bank.Stores;
import dev.lanes.postgres.JacksonEventSerializer;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Where the bank's events and snapshots live: in memory (default) or in PostgreSQL. */
final class StoreOptions {
    /** The store's pool and timeouts: {@link PostgresOptions#DEFAULT}, also for the connection that makes the schema. */
    static final PostgresOptions OPTIONS = PostgresOptions.DEFAULT;

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

    @Option(
            names = "--drop-schema",
            description = "With --store postgres: drop the run's schema (lanes_run_<millis>) when the run ends,"
                    + " instead of keeping it for inspection.")
    boolean dropSchema;

    @Option(
            names = "--append-batch-size",
            paramLabel = "N",
            description = "With --store postgres: the most appends written in one transaction (group commit),"
                    + " 1 to 65535 (default: 64, lanes-postgres' own).")
    @Nullable
    Integer appendBatchSize;

    /** The URL of the run's schema, once {@link #open()} made it (for the raw baseline's scratch table). */
    @Nullable
    String runUrl;

    void validate(CommandSpec spec) {
        if (kind == Kind.POSTGRES && jdbcUrl == null) {
            throw new ParameterException(spec.commandLine(), "--store postgres needs --jdbc-url");
        }
        if (kind == Kind.MEMORY && dropSchema) {
            throw new ParameterException(spec.commandLine(), "--drop-schema needs --store postgres");
        }
        if (kind == Kind.MEMORY && jdbcUrl != null) {
            throw new ParameterException(
                    spec.commandLine(), "--jdbc-url '" + withoutQuery(jdbcUrl) + "' needs --store postgres");
        }
        if (kind == Kind.MEMORY && appendBatchSize != null) {
            throw new ParameterException(spec.commandLine(), "--append-batch-size needs --store postgres");
        }
        if (appendBatchSize != null) {
            try {
                storeOptions();
            } catch (IllegalArgumentException e) {
                throw new ParameterException(
                        spec.commandLine(), "Invalid value for option '--append-batch-size': " + e.getMessage());
            }
        }
        if (jdbcUrl != null && PostgresTarget.parse(jdbcUrl) == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--jdbc-url': '" + withoutQuery(jdbcUrl)
                            + "' is not a PostgreSQL JDBC URL (expected jdbc:postgresql://host:port/database)");
        }
    }

    /**
     * Opens the stores. For PostgreSQL: a fresh schema {@code lanes_run_<millis>} per run (kept afterwards for
     * inspection, or dropped when the stores are closed with {@code --drop-schema}), so runs never see each other's
     * accounts; then connects and migrates.
     *
     * <p>Every connection, the first included, is bounded by {@link #OPTIONS}' timeouts: a server that accepts the
     * connection and never answers fails the run after the connect and login timeout, never hangs it.
     *
     * @throws InfrastructureUnavailableException when the server cannot be reached, does not answer in time or refuses
     *     the login, the schema or the migration, naming host and port and never a password
     */
    Stores open(PrintWriter err) {
        String url = jdbcUrl;
        if (kind == Kind.MEMORY || url == null) {
            return Stores.inMemory("memory", "in-memory event store", EventCodec.bank());
        }
        PostgresTarget target = Objects.requireNonNull(PostgresTarget.parse(url), "checked by validate()");
        String schema = "lanes_run_" + System.currentTimeMillis();
        try {
            String inSchema = inFreshSchema(url, schema);
            runUrl = inSchema;
            return postgres(url, inSchema, schema, err);
        } catch (SQLException | RuntimeException e) {
            throw target.unavailable(e, OPTIONS);
        }
    }

    private Stores postgres(String databaseUrl, String url, String schema, PrintWriter err) {
        JacksonEventSerializer codec = EventCodec.bank();
        PostgresEventStore events = PostgresEventStore.connect(url, user, password, storeOptions(), codec);
        try {
            events.migrate();
        } catch (RuntimeException e) {
            events.close();
            throw e;
        }
        // one queue per instance over the run's table, each with its parked set: closed before the event store
        List<PostgresDeadLetterQueue> queues = new CopyOnWriteArrayList<>();
        return new Stores(
                "postgres",
                events,
                events.snapshotStore(),
                "PostgreSQL event store at " + events.server() + " (schema " + schema + ")",
                () -> {
                    queues.forEach(PostgresDeadLetterQueue::close);
                    events.close();
                    if (dropSchema) {
                        drop(databaseUrl, schema, err);
                    }
                },
                codec,
                () -> {
                    PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.open(events.dataSource(), codec);
                    queues.add(queue);
                    return queue;
                });
    }

    /** {@link #OPTIONS} with the group commit's batch size of {@code --append-batch-size}, if given. */
    private PostgresOptions storeOptions() {
        return appendBatchSize == null
                ? OPTIONS
                : OPTIONS.withAppendBatching(appendBatchSize, OPTIONS.appendBatchWait());
    }

    private String inFreshSchema(String url, String schema) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, connectionProperties());
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /**
     * Drops the run's schema and everything in it, after its stores closed. A failure is told on {@code err}, naming
     * the schema, and does not fail the run: its figures stand.
     */
    private void drop(String url, String schema, PrintWriter err) {
        try (Connection connection = DriverManager.getConnection(url, connectionProperties());
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA " + schema + " CASCADE");
        } catch (SQLException e) {
            err.println("Note: the run's schema " + schema + " was not dropped (--drop-schema): " + e.getMessage());
            err.flush();
        }
    }

    /** The user, the password and the timeouts of {@link #OPTIONS}, for a connection of the driver's own. */
    Properties connectionProperties() {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        if (password != null) {
            properties.setProperty("password", password);
        }
        String connect = Long.toString(OPTIONS.connectTimeout().toSeconds());
        properties.setProperty("connectTimeout", connect);
        properties.setProperty("loginTimeout", connect);
        properties.setProperty(
                "socketTimeout", Long.toString(OPTIONS.socketTimeout().toSeconds()));
        properties.setProperty("ApplicationName", OPTIONS.applicationName());
        return properties;
    }

    /** The URL without its parameters, where a password may be. */
    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query) + "?...";
    }
}
