package dev.lanes.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code java -jar lanes.jar}. */
@Command(
        name = "lanes",
        mixinStandardHelpOptions = true,
        version = "lanes 0.1.0-SNAPSHOT",
        description = "Per-aggregate ordered, concurrent dispatch: the bank demo and load scenarios, with a report.",
        subcommands = {DemoCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class LanesCli {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code: 0 passed, 1 an invariant failed, 2 bad options. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line; output can be redirected with {@link CommandLine#setOut}. */
    public static CommandLine commandLine() {
        return new CommandLine(new LanesCli()).setCaseInsensitiveEnumValuesAllowed(true);
    }
}
