package dev.lanes.cli.command;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code lanes parked list|retry|skip}: the dead letters an event side parked in PostgreSQL ({@code
 * PostgresDeadLetterQueue}), per processor and aggregate. The CLI runs no processor: {@code retry} asks the instances
 * running the processor to retry the sequence in its lane (they poll for requests), and {@code skip} removes the head
 * here, then asks for a retry of the rest.
 */
@Command(
        name = "parked",
        mixinStandardHelpOptions = true,
        description = {
            "The event streams parked in PostgreSQL per processor and aggregate (PostgresDeadLetterQueue): list them,"
                    + " ask the running instances to retry a sequence in order, or skip its head.",
            ""
        },
        subcommands = {
            ParkedCommand.ListCommand.class,
            ParkedCommand.RetryCommand.class,
            ParkedCommand.SkipCommand.class
        })
final class ParkedCommand {
    /** How long one database call of these commands may take. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private ParkedCommand() {}

    /** What every subcommand is given: its spec and the queue's options (picocli injects inherited fields). */
    abstract static class Subcommand implements Callable<Integer> {
        @Spec
        @SuppressWarnings("NullAway.Init") // injected by picocli before call()
        CommandSpec spec;

        @Mixin
        @SuppressWarnings("NullAway.Init") // injected by picocli before call()
        ParkedOptions options;
    }

    /** A subcommand on one sequence: its letters are listed first, and nothing parked ends it with its own code. */
    abstract static class SequenceSubcommand extends Subcommand {
        @Override
        public final Integer call() {
            options.validate(spec, true);
            try (PostgresDeadLetterQueue queue = options.open()) {
                AggregateId aggregate = options.requiredAggregateId();
                List<DeadLetter> letters = options.call(queue.list(options.processor(), aggregate));
                if (letters.isEmpty()) {
                    return options.nothingParked(spec);
                }
                PrintWriter out = spec.commandLine().getOut();
                operate(queue, aggregate, letters, out);
                out.flush();
                return ExitCode.PASSED;
            }
        }

        /** Acts on a sequence that has {@code letters} (head first, never empty). */
        abstract void operate(
                PostgresDeadLetterQueue queue, AggregateId aggregate, List<DeadLetter> letters, PrintWriter out);
    }

    /** {@code lanes parked list}: the sequences, or with processor and aggregate, one sequence's letters. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Every parked sequence (processor, aggregate, letters); with --processor and --aggregate, that"
                        + " sequence's letters, head first, with their reasons.",
                ""
            })
    static final class ListCommand extends Subcommand {
        @Override
        public Integer call() {
            options.validate(spec, false);
            try (PostgresDeadLetterQueue queue = options.open()) {
                PrintWriter out = spec.commandLine().getOut();
                AggregateId aggregate = options.aggregateId();
                if (aggregate == null) {
                    printSequences(out, options.call(queue.sequences()), options.processor);
                } else {
                    printLetters(out, options.call(queue.list(options.processor(), aggregate)));
                }
                out.flush();
                return ExitCode.PASSED;
            }
        }

        /** What a letter holds: a stream's version (and a saga reply), or a command with its request id. */
        private static String held(DeadLetter letter) {
            CommandMessage command = letter.command();
            if (command != null) {
                return "command " + command;
            }
            DomainEventStream stream = letter.requireStream();
            return "v" + stream.version() + (letter.reply() == null ? "" : " " + letter.reply());
        }

        private static void printSequences(
                PrintWriter out, List<DeadLetterSequence> sequences, @Nullable String processor) {
            List<DeadLetterSequence> shown = sequences.stream()
                    .filter(sequence ->
                            processor == null || sequence.processor().equals(processor))
                    .toList();
            if (shown.isEmpty()) {
                out.println("Nothing is parked.");
            }
            shown.forEach(sequence ->
                    out.printf("%s %s: %d parked%n", sequence.processor(), sequence.aggregateId(), sequence.size()));
        }

        private void printLetters(PrintWriter out, List<DeadLetter> letters) {
            if (letters.isEmpty()) {
                out.println("Nothing is parked for " + options.aggregateId() + " in " + options.processor() + ".");
            }
            // a saga's reply letter: v is the version of the stream whose event caused the command
            letters.forEach(letter -> out.printf(
                    "#%d %s, %d attempt(s), parked %s: %s%n",
                    letter.index(), held(letter), letter.attempts(), letter.parkedAt(), letter.reason()));
        }
    }

    /** {@code lanes parked retry}: asks the instances running the processor to retry the sequence. */
    @Command(
            name = "retry",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Asks the instances running the processor to deliver the sequence's letters in order through the"
                        + " aggregate's lane (they poll for requests, every 5 s by default); the first that fails"
                        + " again stays the head. Parked commands (processor commands:<aggregate type>) are sent"
                        + " again with their request ids by any instance.",
                ""
            })
    static final class RetryCommand extends SequenceSubcommand {
        @Override
        void operate(PostgresDeadLetterQueue queue, AggregateId aggregate, List<DeadLetter> letters, PrintWriter out) {
            options.call(queue.requestRetry(options.processor(), aggregate).thenReturn(true));
            out.printf(
                    "Requested a retry of %s in %s (%d parked): the instances running %s take it at their next poll.%n",
                    aggregate, options.processor(), letters.size(), options.processor());
        }
    }

    /** {@code lanes parked skip}: removes the head, then asks for a retry of the rest. */
    @Command(
            name = "skip",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = {
                "Removes the sequence's head without delivering it, then asks the instances running the processor to"
                        + " retry the letters behind it, in order.",
                ""
            })
    static final class SkipCommand extends SequenceSubcommand {
        @Override
        void operate(PostgresDeadLetterQueue queue, AggregateId aggregate, List<DeadLetter> letters, PrintWriter out) {
            DeadLetter head = letters.get(0);
            options.call(queue.evict(head).thenReturn(true));
            out.printf("Skipped %s.%n", head);
            if (letters.size() > 1) {
                options.call(queue.requestRetry(options.processor(), aggregate).thenReturn(true));
                out.printf(
                        "Requested a retry of the %d letter(s) behind it: the instances running %s take it at their"
                                + " next poll.%n",
                        letters.size() - 1, options.processor());
            }
        }
    }
}
