package dev.lanes.cli.command;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code lanes}: the root command, with {@code demo} and {@code bench} under it. */
@Command(
        name = "lanes",
        mixinStandardHelpOptions = true,
        version = "lanes 0.1.0-SNAPSHOT",
        description = "Per-aggregate ordered, concurrent dispatch: the bank demo and load scenarios, with a report.",
        subcommands = {DemoCommand.class, BenchCommand.class, CommandLine.HelpCommand.class})
public final class LanesCommand {

    private LanesCommand() {}

    /** The configured command line; output can be redirected with {@link CommandLine#setOut}. */
    public static CommandLine commandLine() {
        return new CommandLine(new LanesCommand()).setCaseInsensitiveEnumValuesAllowed(true);
    }
}
