package dev.lanes.cli;

import dev.lanes.cli.command.LanesCommand;
import dev.lanes.cli.run.StopRequest;
import picocli.CommandLine;

/**
 * Entry point of {@code java -jar lanes.jar}. Exit codes: 0 every invariant passed, 1 an invariant failed, 2 a bad
 * option, 3 infrastructure unavailable, 4 nothing parked ({@code parked retry|skip}), 70 an unexpected error. Ctrl-C or SIGTERM during a run stops it gracefully and
 * still prints its report.
 */
public final class LanesCli {

    private LanesCli() {}

    public static void main(String[] args) {
        GracefulExit exit = GracefulExit.install();
        System.exit(exit.execute(exit.commandLine(), args));
    }

    /** Runs the command line, with no signal hook, and returns its exit code. */
    public static int run(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line, with no signal hook; output can be redirected with {@link CommandLine#setOut}. */
    public static CommandLine commandLine() {
        return LanesCommand.commandLine(new StopRequest());
    }
}
