package dev.lanes.cli.command;

import dev.lanes.cli.run.StopRequest;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code lanes}: the root command, with {@code demo}, {@code bench} and {@code parked} under it. */
@Command(
        name = "lanes",
        mixinStandardHelpOptions = true,
        version = "lanes 0.1.0-SNAPSHOT",
        description = "Per-aggregate ordered, concurrent dispatch: the bank demo and load scenarios, with a report.",
        subcommands = {
            DemoCommand.class,
            BenchCommand.class,
            ParkedCommand.class,
            ProcessorsCommand.class,
            CommandLine.HelpCommand.class
        })
public final class LanesCommand {

    private LanesCommand() {}

    /**
     * The configured command line: one-line errors with a hint, the exit codes of {@link ExitCode} in every {@code
     * --help}; output can be redirected with {@link CommandLine#setOut}.
     *
     * @param stop asks a running {@code demo} or {@code bench} to stop gracefully (the signal hook's)
     */
    public static CommandLine commandLine(StopRequest stop) {
        ShortErrors errors = new ShortErrors();
        CommandLine commandLine = new CommandLine(new LanesCommand(), new Factory(stop))
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(errors)
                .setExecutionExceptionHandler(errors);
        listExitCodes(commandLine);
        return commandLine;
    }

    /** Creates the run commands with the stop request; everything else as picocli does. */
    private static final class Factory implements CommandLine.IFactory {
        private final StopRequest stop;

        Factory(StopRequest stop) {
            this.stop = stop;
        }

        @Override
        public <K> K create(Class<K> type) throws Exception {
            if (type == DemoCommand.class) {
                return type.cast(new DemoCommand(stop));
            }
            if (type == BenchCommand.class) {
                return type.cast(new BenchCommand(stop));
            }
            return CommandLine.defaultFactory().create(type);
        }
    }

    private static void listExitCodes(CommandLine command) {
        if (command.getCommand() instanceof CommandLine.HelpCommand) {
            return;
        }
        command.getCommandSpec()
                .usageMessage()
                .exitCodeListHeading("%nExit codes:%n")
                .exitCodeList(ExitCode.descriptions());
        command.getSubcommands().values().forEach(LanesCommand::listExitCodes);
    }
}
