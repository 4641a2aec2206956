package dev.lanes.cli.command;

import java.io.PrintWriter;
import org.apache.kafka.common.config.ConfigException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * What the user sees when something goes wrong: a bad option is one line and a hint ({@code Try 'lanes demo --help'}),
 * not the whole usage; an unreachable database is one line naming host and port (never a password, never a stack
 * trace); a Kafka setting a client refuses is one line with Kafka's reason; anything else is a bug and keeps its stack
 * trace.
 */
final class ShortErrors implements IParameterExceptionHandler, IExecutionExceptionHandler {

    @Override
    public int handleParseException(ParameterException error, String[] args) {
        CommandLine command = error.getCommandLine();
        PrintWriter err = command.getErr();
        if (args.length == 0) {
            err.println(error.getMessage());
            command.usage(err);
            return ExitCode.BAD_OPTION;
        }
        err.println(error.getMessage());
        UnmatchedArgumentException.printSuggestions(error, err);
        err.printf(
                "Try '%s --help' for more information.%n",
                command.getCommandSpec().qualifiedName());
        err.flush();
        return ExitCode.BAD_OPTION;
    }

    @Override
    public int handleExecutionException(Exception error, CommandLine command, ParseResult parsed) {
        PrintWriter err = command.getErr();
        try {
            if (error instanceof InfrastructureUnavailableException unavailable) {
                err.println(command.getCommandSpec().qualifiedName() + ": " + unavailable.getMessage());
                return ExitCode.INFRASTRUCTURE_UNAVAILABLE;
            }
            ConfigException refused = kafkaSettingRefused(error);
            if (refused != null) {
                err.println(command.getCommandSpec().qualifiedName()
                        + ": a Kafka client refused its settings (--kafka-property): " + refused.getMessage());
                return ExitCode.BAD_OPTION;
            }
            err.println(command.getCommandSpec().qualifiedName() + " failed unexpectedly:");
            error.printStackTrace(err);
            return ExitCode.UNEXPECTED_ERROR;
        } finally {
            err.flush();
        }
    }

    private static @Nullable ConfigException kafkaSettingRefused(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof ConfigException refused) {
                return refused;
            }
        }
        return null;
    }
}
