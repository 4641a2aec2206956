package dev.lanes.cli.command;

import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import dev.lanes.postgres.PostgresUnavailableException;
import dev.lanes.processing.TrackingOperations;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import reactor.core.publisher.Mono;

/** The options of {@code lanes processors list|pause|resume|reset|seek}: which database, processor and segment. */
final class ProcessorsOptions {
    /** A pool of one, with the default timeouts: a server that never answers fails the command after them. */
    private static final PostgresOptions OPTIONS =
            PostgresOptions.DEFAULT.withPoolSize(1).withApplicationName("lanes-cli");

    @Option(
            names = "--jdbc-url",
            required = true,
            paramLabel = "URL",
            description = "The database of the checkpoints and events, e.g. jdbc:postgresql://127.0.0.1:5432/postgres"
                    + " (currentSchema=... for another schema).")
    @SuppressWarnings("NullAway.Init") // required: set by picocli before call()
    String jdbcUrl;

    @Option(names = "--db-user", defaultValue = "postgres", description = "(default: ${DEFAULT-VALUE}).")
    String user = "postgres";

    @Option(names = "--db-password", description = "(default: none).")
    @Nullable
    String password;

    @Option(names = "--processor", paramLabel = "NAME", description = "The tracking processor, e.g. Statements.")
    @Nullable
    String processor;

    @Option(
            names = "--segment",
            paramLabel = "N",
            description = "One segment of the processor, from 0 (default: every segment).")
    @Nullable
    Integer segment;

    /** Fails as a bad option (exit 2) naming what is wrong; {@code processorRequired} for every command but list. */
    void validate(CommandSpec spec, boolean processorRequired) {
        if (PostgresTarget.parse(jdbcUrl) == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--jdbc-url': '" + withoutQuery(jdbcUrl)
                            + "' is not a PostgreSQL JDBC URL (expected jdbc:postgresql://host:port/database)");
        }
        if (processorRequired && processor == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: --processor");
        }
        if (segment != null && processor == null) {
            throw new ParameterException(spec.commandLine(), "--segment needs --processor");
        }
        if (segment != null && segment < 0) {
            throw new ParameterException(
                    spec.commandLine(), "Invalid value for option '--segment': must not be negative: " + segment);
        }
    }

    String processor() {
        return Objects.requireNonNull(processor, "checked by validate()");
    }

    /**
     * Connects with a pool of one.
     *
     * @throws InfrastructureUnavailableException naming host and port, never a password
     */
    Connection open() {
        PostgresEventStore store;
        try {
            store = PostgresEventStore.connect(jdbcUrl, user, password, OPTIONS);
        } catch (RuntimeException e) {
            throw translate(e);
        }
        try {
            PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.connect(jdbcUrl, user, password, OPTIONS);
            return new Connection(store, queue);
        } catch (RuntimeException e) {
            store.close();
            throw translate(e);
        }
    }

    /** The stores of one command, closed together. */
    record Connection(PostgresEventStore store, PostgresDeadLetterQueue queue) implements AutoCloseable {
        TrackingOperations operations() {
            return TrackingOperations.of(store.checkpointStore(), store, queue);
        }

        @Override
        public void close() {
            try {
                queue.close();
            } finally {
                store.close();
            }
        }
    }

    /**
     * Waits for one database call; its failure as the one line to show. An {@link IllegalArgumentException} (no such
     * processor or segment) is passed on as it is.
     */
    <T> T call(Mono<T> work) {
        try {
            return Objects.requireNonNull(work.block(ParkedCommand.TIMEOUT), "the call completed empty");
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    private RuntimeException translate(RuntimeException e) {
        PostgresTarget target = Objects.requireNonNull(PostgresTarget.parse(jdbcUrl), "checked");
        return e instanceof PostgresUnavailableException ? target.unavailable(e, OPTIONS) : target.failed(e);
    }

    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query) + "?...";
    }
}
