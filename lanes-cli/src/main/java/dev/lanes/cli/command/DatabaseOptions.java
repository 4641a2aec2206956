package dev.lanes.cli.command;

import dev.lanes.postgres.PostgresOptions;
import dev.lanes.postgres.PostgresUnavailableException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import reactor.core.publisher.Mono;

/**
 * The database options of the commands that work on a Lanes PostgreSQL database from outside ({@code lanes parked},
 * {@code lanes processors}), how they connect (a pool of one) and how a failure becomes the one line to show.
 */
final class DatabaseOptions {
    /** A pool of one, with the default timeouts: a server that never answers fails the command after them. */
    static final PostgresOptions OPTIONS =
            PostgresOptions.DEFAULT.withPoolSize(1).withApplicationName("lanes-cli");

    @Option(
            names = "--jdbc-url",
            required = true,
            paramLabel = "URL",
            description = "The Lanes database (events, checkpoints, dead letters), e.g."
                    + " jdbc:postgresql://127.0.0.1:5432/postgres (currentSchema=... for another schema).")
    @SuppressWarnings("NullAway.Init") // required: set by picocli before call()
    String jdbcUrl;

    @Option(names = "--db-user", defaultValue = "postgres", description = "(default: ${DEFAULT-VALUE}).")
    String user = "postgres";

    @Option(names = "--db-password", description = "(default: none).")
    @Nullable
    String password;

    /** Fails as a bad option (exit 2) when the URL is not a PostgreSQL JDBC URL (its query left out). */
    void validate(CommandSpec spec) {
        if (PostgresTarget.parse(jdbcUrl) == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--jdbc-url': '" + withoutQuery(jdbcUrl)
                            + "' is not a PostgreSQL JDBC URL (expected jdbc:postgresql://host:port/database)");
        }
    }

    /** What {@code connect} opens over the options, its failure translated (naming host and port, no password). */
    <T> T open(Connector<T> connect) {
        try {
            return connect.open(jdbcUrl, user, password, OPTIONS);
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    /** Opens a store or queue over a JDBC URL. */
    @FunctionalInterface
    interface Connector<T> {
        T open(String jdbcUrl, String user, @Nullable String password, PostgresOptions options);
    }

    /** Waits for one database call; its failure as the one line to show. */
    <T> T call(Mono<T> work) {
        try {
            return Objects.requireNonNull(work.block(ParkedCommand.TIMEOUT), "the call completed empty");
        } catch (RuntimeException e) {
            throw translate(e);
        }
    }

    RuntimeException translate(RuntimeException e) {
        PostgresTarget target = Objects.requireNonNull(PostgresTarget.parse(jdbcUrl), "checked");
        return e instanceof PostgresUnavailableException ? target.unavailable(e, OPTIONS) : target.failed(e);
    }

    private static String withoutQuery(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query) + "?...";
    }
}
