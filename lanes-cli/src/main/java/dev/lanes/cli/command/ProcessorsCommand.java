package dev.lanes.cli.command;

import dev.lanes.processing.tracking.SegmentStatus;
import dev.lanes.processing.tracking.TrackingOperations;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code lanes processors list|pause|resume|reset|seek}: the tracking processors whose checkpoints are in PostgreSQL
 * ({@code PostgresCheckpointStore}), per segment. The CLI runs no processor: it writes pauses and seeks to the
 * checkpoint store, and the instance that owns each segment acts on them at its next tick ({@code TrackingOperations}).
 */
@Command(
        name = "processors",
        mixinStandardHelpOptions = true,
        description = {
            "The tracking processors with checkpoints in PostgreSQL, per segment: list their owners, checkpoints and"
                    + " lag; pause or resume them (the owner keeps the claim); reset or seek them (the owner runs the"
                    + " projection's reset hook first).",
            ""
        },
        subcommands = {
            ProcessorsCommand.ListCommand.class,
            ProcessorsCommand.PauseCommand.class,
            ProcessorsCommand.ResumeCommand.class,
            ProcessorsCommand.ResetCommand.class,
            ProcessorsCommand.SeekCommand.class
        })
final class ProcessorsCommand {
    private ProcessorsCommand() {}

    /** What every subcommand is given: its spec and the options (picocli injects inherited fields). */
    abstract static class Subcommand implements Callable<Integer> {
        @Spec
        @SuppressWarnings("NullAway.Init") // injected by picocli before call()
        CommandSpec spec;

        @Mixin
        @SuppressWarnings("NullAway.Init") // injected by picocli before call()
        ProcessorsOptions options;

        @Override
        public final Integer call() {
            options.validate(spec, !(this instanceof ListCommand));
            try (ProcessorsOptions.Connection connection = options.open()) {
                PrintWriter out = spec.commandLine().getOut();
                run(connection.operations(), out);
                out.flush();
                return ExitCode.PASSED;
            } catch (IllegalArgumentException e) {
                spec.commandLine()
                        .getErr()
                        .printf("%s: %s%n", spec.qualifiedName(), e.getMessage())
                        .flush();
                return ExitCode.BAD_OPTION;
            }
        }

        abstract void run(TrackingOperations operations, PrintWriter out);

        /** Prints what an action asked for, or that the segments are not known. */
        void acted(String verb, List<Integer> segments, PrintWriter out) {
            out.printf(
                    "%s %s segment(s) %s: the instances owning them act at their next poll.%n",
                    verb, options.processor(), segments);
        }
    }

    /** {@code lanes processors list}: every processor, or one, per segment. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Every tracking processor's segments (or --processor's): owner, checkpoint, head, lag in streams and"
                        + " seconds, state (RUNNING, CATCHING_UP, PAUSED, SEEKING, UNCLAIMED) and parked streams.",
                ""
            })
    static final class ListCommand extends Subcommand {
        @Override
        void run(TrackingOperations operations, PrintWriter out) {
            List<String> names =
                    options.processor == null ? options.call(operations.processors()) : List.of(options.processor());
            if (names.isEmpty()) {
                out.println("No tracking processor has checkpoints here.");
            }
            for (String name : names) {
                for (SegmentStatus status : options.call(operations.status(name))) {
                    if (options.segment == null
                            || options.segment == status.segment().index()) {
                        print(status, out);
                    }
                }
            }
        }

        private static void print(SegmentStatus status, PrintWriter out) {
            out.printf(
                    "%s %d/%d %s owner=%s checkpoint=%d head=%d lag=%d streams, %d s, parked=%d%n",
                    status.processor(),
                    status.segment().index(),
                    status.segment().count(),
                    status.state(),
                    status.owner() == null ? "-" : status.owner(),
                    status.checkpoint(),
                    status.head(),
                    status.lagStreams(),
                    status.lagTime().toSeconds(),
                    status.parked());
        }
    }

    /** {@code lanes processors pause}. */
    @Command(
            name = "pause",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {"Pauses the segment (or every segment): its owner keeps the claim and reads nothing.", ""})
    static final class PauseCommand extends Subcommand {
        @Override
        void run(TrackingOperations operations, PrintWriter out) {
            acted("Paused", options.call(operations.pause(options.processor(), options.segment)), out);
        }
    }

    /** {@code lanes processors resume}. */
    @Command(
            name = "resume",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {"Resumes the segment (or every segment).", ""})
    static final class ResumeCommand extends Subcommand {
        @Override
        void run(TrackingOperations operations, PrintWriter out) {
            acted("Resumed", options.call(operations.resume(options.processor(), options.segment)), out);
        }
    }

    /** {@code lanes processors reset}. */
    @Command(
            name = "reset",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Asks the owner of the segment (or of every segment) to rebuild it from the start: it runs the"
                        + " projection's reset hook, discards the segment's dead letters and reads from position 1.",
                ""
            })
    static final class ResetCommand extends Subcommand {
        @Override
        void run(TrackingOperations operations, PrintWriter out) {
            acted("Asked a reset of", options.call(operations.reset(options.processor(), options.segment)), out);
        }
    }

    /** {@code lanes processors seek}. */
    @Command(
            name = "seek",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Asks the owner of the segment (or of every segment) to read again from --position: it runs the"
                        + " projection's reset hook and discards the segment's dead letters first.",
                ""
            })
    static final class SeekCommand extends Subcommand {
        @Option(names = "--position", required = true, paramLabel = "P", description = "The first position to read.")
        long position;

        @Override
        void run(TrackingOperations operations, PrintWriter out) {
            acted(
                    "Asked a seek to position " + position + " of",
                    options.call(operations.seek(options.processor(), options.segment, position)),
                    out);
        }
    }
}
