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

    /**
     * The configured command line: one-line errors with a hint, the exit codes of {@link ExitCode} in every {@code
     * --help}; output can be redirected with {@link CommandLine#setOut}.
     */
    public static CommandLine commandLine() {
        ShortErrors errors = new ShortErrors();
        CommandLine commandLine = new CommandLine(new LanesCommand())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(errors)
                .setExecutionExceptionHandler(errors);
        listExitCodes(commandLine);
        commandLine.getSubcommands().values().forEach(LanesCommand::listExitCodes);
        return commandLine;
    }

    private static void listExitCodes(CommandLine command) {
        if (command.getCommand() instanceof CommandLine.HelpCommand) {
            return;
        }
        command.getCommandSpec()
                .usageMessage()
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(ExitCode.descriptions());
    }
}
