package dev.lanes.cli.command;

import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.processing.tracking.TrackingOperations;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import reactor.core.publisher.Mono;

/** The options of {@code lanes processors list|pause|resume|reset|seek}: which database, processor and segment. */
final class ProcessorsOptions {
    @Mixin
    @SuppressWarnings("NullAway.Init") // set by picocli
    DatabaseOptions database;

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
        database.validate(spec);
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
        PostgresEventStore store = database.open(PostgresEventStore::connect);
        try {
            return new Connection(store, database.open(PostgresDeadLetterQueue::connect));
        } catch (RuntimeException e) {
            store.close();
            throw e;
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
            throw e; // no such processor or segment: its own message
        } catch (RuntimeException e) {
            throw database.translate(e);
        }
    }
}
