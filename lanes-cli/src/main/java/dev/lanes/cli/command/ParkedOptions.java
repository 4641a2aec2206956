package dev.lanes.cli.command;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import reactor.core.publisher.Mono;

/** The options of {@code lanes parked list|retry|skip}: which database, which processor and aggregate. */
final class ParkedOptions {
    @Mixin
    @SuppressWarnings("NullAway.Init") // set by picocli
    DatabaseOptions database;

    @Option(
            names = "--processor",
            paramLabel = "NAME",
            description =
                    "The event processor, e.g. BalanceProjection, or commands:<context>.<aggregate> for parked commands.")
    @Nullable
    String processor;

    @Option(
            names = "--aggregate",
            paramLabel = "CONTEXT.AGGREGATE/ID",
            description = "The aggregate, as Lanes prints it, e.g. bank.account/acc-1.")
    @Nullable
    String aggregate;

    @Option(
            names = "--tenant",
            defaultValue = AggregateId.DEFAULT_TENANT,
            description = "The aggregate's tenant (default: ${DEFAULT-VALUE}).")
    String tenant = AggregateId.DEFAULT_TENANT;

    /** Fails as a bad option (exit 2) naming what is wrong; {@code both}: processor and aggregate are required. */
    void validate(CommandSpec spec, boolean both) {
        database.validate(spec);
        if (both && (processor == null || aggregate == null)) {
            throw new ParameterException(spec.commandLine(), "Missing required options: --processor and --aggregate");
        }
        if (aggregate != null && processor == null) {
            throw new ParameterException(spec.commandLine(), "--aggregate needs --processor");
        }
        if (aggregate != null && parse(aggregate, tenant) == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--aggregate': '" + aggregate
                            + "' is not CONTEXT.AGGREGATE/ID (e.g. bank.account/acc-1)");
        }
    }

    /** {@code context.aggregate/id} in {@code tenant}; null if it is not of that shape. */
    static @Nullable AggregateId parse(String text, String tenant) {
        int slash = text.indexOf('/');
        int dot = slash < 0 ? -1 : text.lastIndexOf('.', slash);
        if (dot <= 0 || dot >= slash - 1 || slash == text.length() - 1 || tenant.isBlank()) {
            return null;
        }
        return AggregateId.of(
                NamedAggregate.of(text.substring(0, dot), text.substring(dot + 1, slash)),
                text.substring(slash + 1),
                tenant);
    }

    String processor() {
        return Objects.requireNonNull(processor, "checked by validate()");
    }

    @Nullable
    AggregateId aggregateId() {
        String text = aggregate;
        return text == null ? null : parse(text, tenant);
    }

    AggregateId requiredAggregateId() {
        return Objects.requireNonNull(aggregateId(), "checked by validate()");
    }

    /**
     * Connects with a pool of one and loads the parked sequences.
     *
     * @throws InfrastructureUnavailableException naming host and port, never a password
     */
    PostgresDeadLetterQueue open() {
        return database.open(PostgresDeadLetterQueue::connect);
    }

    /** Waits for one database call; its failure as the one line to show. */
    <T> T call(Mono<T> work) {
        return database.call(work);
    }

    /** One line on stderr, exit {@link ExitCode#NOTHING_PARKED}. */
    int nothingParked(CommandSpec spec) {
        spec.commandLine()
                .getErr()
                .printf("%s: nothing is parked for %s in %s%n", spec.qualifiedName(), aggregateId(), processor())
                .flush();
        return ExitCode.NOTHING_PARKED;
    }
}
