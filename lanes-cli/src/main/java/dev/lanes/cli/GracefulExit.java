package dev.lanes.cli;

import dev.lanes.cli.command.ExitCode;
import dev.lanes.cli.command.LanesCommand;
import dev.lanes.cli.run.StopRequest;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;
import picocli.CommandLine;

/**
 * Ctrl-C (SIGINT) or SIGTERM during a run stops it gracefully and still prints its report. The JVM runs its shutdown
 * hooks on those signals while the command goes on; this hook asks the run to stop ({@link StopRequest}), waits for
 * the command to print its report and return its exit code (that of the invariants), then ends the JVM with that code
 * (a hook cannot {@code System.exit}; the signal's own code would be 130 or 143). When the command ends first, its
 * {@code System.exit} runs the hook too, which then does nothing.
 */
final class GracefulExit {
    private final StopRequest stop = new StopRequest();
    private final CompletableFuture<Integer> exitCode = new CompletableFuture<>();
    private final IntConsumer halt;
    private final PrintStream err;

    /**
     * @param halt ends the JVM with a code ({@code Runtime.getRuntime()::halt}); a test records it instead
     * @param err where the hook says what it does
     */
    GracefulExit(IntConsumer halt, PrintStream err) {
        this.halt = halt;
        this.err = err;
    }

    /** Installs the hook for this JVM. */
    static GracefulExit install() {
        GracefulExit exit = new GracefulExit(Runtime.getRuntime()::halt, System.err);
        Runtime.getRuntime().addShutdownHook(new Thread(exit::onShutdown, "lanes-graceful-stop"));
        return exit;
    }

    /** The command line the hook can stop; its runs read {@link #stop()}. */
    CommandLine commandLine() {
        return LanesCommand.commandLine(stop);
    }

    StopRequest stop() {
        return stop;
    }

    /** Runs the command and returns its exit code, which the hook then exits with if a signal came meanwhile. */
    int execute(CommandLine commandLine, String... args) {
        int code = ExitCode.UNEXPECTED_ERROR;
        try {
            code = commandLine.execute(args);
            return code;
        } finally {
            exitCode.complete(code);
        }
    }

    /** What the hook runs: nothing once the command ended; else stop the run, wait for its report, exit with its code. */
    void onShutdown() {
        if (exitCode.isDone()) {
            return;
        }
        err.println("lanes: stopping gracefully (the report follows); the stop may take up to " + stop.stopWithin());
        err.flush();
        stop.request("a signal (Ctrl-C or SIGTERM)");
        halt.accept(awaitExitCode());
    }

    private int awaitExitCode() {
        try {
            return exitCode.get(stop.stopWithin().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            err.println("lanes: the run did not end within " + stop.stopWithin() + " of the signal; exiting");
            return ExitCode.INVARIANT_FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.INVARIANT_FAILED;
        } catch (ExecutionException e) {
            return ExitCode.UNEXPECTED_ERROR;
        } finally {
            System.out.flush();
            err.flush();
        }
    }
}
