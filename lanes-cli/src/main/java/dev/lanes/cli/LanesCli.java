package dev.lanes.cli;

import dev.lanes.cli.command.LanesCommand;
import picocli.CommandLine;

/** Entry point of {@code java -jar lanes.jar}. */
public final class LanesCli {

    private LanesCli() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns its exit code: 0 passed, 1 an invariant failed, 2 bad options. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line; output can be redirected with {@link CommandLine#setOut}. */
    public static CommandLine commandLine() {
        return LanesCommand.commandLine();
    }
}
