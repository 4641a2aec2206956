package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.cli.command.ExitCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Ctrl-C (SIGINT) or SIGTERM during a run stops it gracefully and still prints the report; the exit code is that of
 * the invariants. In process through the hook the JVM runs on those signals, and end to end with real signals sent to
 * a {@code lanes} process.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GracefulExitTest {
    private static final Duration STARTED = Duration.ofMinutes(2);

    @Test
    void theHookStopsARunningDemoGracefullyAndExitsWithTheCodeOfItsInvariants() throws Exception {
        List<Integer> halted = new CopyOnWriteArrayList<>();
        ByteArrayOutputStream hookErr = new ByteArrayOutputStream();
        GracefulExit exit = new GracefulExit(halted::add, new PrintStream(hookErr, true, StandardCharsets.UTF_8));
        StringWriter out = new StringWriter();
        CommandLine commandLine = exit.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(new StringWriter(), true));
        Thread command = new Thread(
                () -> exit.execute(commandLine, "demo", "--duration", "1h", "--accounts", "20", "--clients", "4"),
                "lanes-command");
        command.start();
        await().atMost(STARTED).until(() -> out.toString().contains("clients sending for 3600 s"));

        exit.onShutdown(); // what the JVM runs on SIGINT or SIGTERM; returns once the command ended

        command.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(halted).containsExactly(ExitCode.PASSED);
        assertThat(out.toString())
                .contains("stop requested by a signal (Ctrl-C or SIGTERM); stopping gracefully")
                .contains("Lanes runtime shutdown: graceful")
                .contains("Note          the load was cut short by a signal (Ctrl-C or SIGTERM)")
                .contains("Result        PASS");
        assertThat(hookErr.toString(StandardCharsets.UTF_8)).startsWith("lanes: stopping gracefully");
    }

    @Test
    void aSignalWhileTheDatabaseDoesNotAnswerExitsWithThreeAndTheLineThatSaysSo() throws Exception {
        List<Integer> halted = new CopyOnWriteArrayList<>();
        GracefulExit exit = new GracefulExit(halted::add, new PrintStream(new ByteArrayOutputStream(), true));
        StringWriter err = new StringWriter();
        CommandLine commandLine = exit.commandLine();
        commandLine.setOut(new PrintWriter(new StringWriter(), true));
        commandLine.setErr(new PrintWriter(err, true));
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String url = "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/x";
            Thread command = new Thread(
                    () -> exit.execute(commandLine, "demo", "--store", "postgres", "--jdbc-url", url, "-q"),
                    "lanes-command");
            command.start();
            silent.setSoTimeout((int) STARTED.toMillis());
            try (Socket connected = silent.accept()) { // the run's first connection is open: never answered
                exit.onShutdown(); // SIGTERM while the first connection waits for the server's answer

                assertThat(halted).as(err.toString()).containsExactly(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
                assertThat(err.toString().lines())
                        .singleElement()
                        .asString()
                        .startsWith("lanes demo: cannot reach PostgreSQL at 127.0.0.1:" + silent.getLocalPort())
                        .contains("timeout");
                command.join(TimeUnit.SECONDS.toMillis(30));
            }
        }
    }

    @Test
    void afterTheCommandEndedTheHookLeavesTheExitToSystemExit() {
        List<Integer> halted = new CopyOnWriteArrayList<>();
        GracefulExit exit = new GracefulExit(halted::add, new PrintStream(new ByteArrayOutputStream(), true));
        CommandLine commandLine = exit.commandLine();
        commandLine.setOut(new PrintWriter(new StringWriter(), true));

        assertThat(exit.execute(commandLine, "--version")).isZero();
        exit.onShutdown();

        assertThat(halted).isEmpty();
        assertThat(exit.stop().isRequested()).isFalse();
    }

    @Test
    void sigintDuringADemoPrintsTheReportAndExitsWithZero(@TempDir Path dir) throws Exception {
        Assumptions.assumeFalse(
                sigintIgnored(), "SIGINT is ignored by this JVM (started in the background): a child ignores it too");
        Lanes lanes = lanes(dir, "demo", "--duration", "1h", "--accounts", "20", "--clients", "4");
        await().atMost(STARTED).until(() -> lanes.out().contains("clients sending"));

        signal(lanes.process(), "INT");
        if (!lanes.process().waitFor(2, TimeUnit.MINUTES) && !lanes.err().contains("stopping gracefully")) {
            lanes.process().destroyForcibly();
            Assumptions.abort("SIGINT is ignored here (inherited from the parent): " + lanes.err());
        }

        assertThat(lanes.process().waitFor(2, TimeUnit.MINUTES))
                .as(lanes.out() + lanes.err())
                .isTrue();
        assertThat(lanes.process().exitValue()).as(lanes.out() + lanes.err()).isEqualTo(ExitCode.PASSED);
        assertThat(lanes.out())
                .contains("Lanes runtime shutdown: graceful")
                .contains("the load was cut short by a signal")
                .contains("Result        PASS");
        assertThat(lanes.err()).startsWith("lanes: stopping gracefully");
    }

    @Test
    void sigtermDuringABenchPrintsTheReportAndExitsWithTheCodeOfItsInvariants(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("cut.json");
        Lanes lanes = lanes(
                dir,
                "bench",
                "--scenario",
                "hot-key",
                "--rate",
                "2000",
                "--messages",
                "2000000",
                "--aggregates",
                "100",
                "--json",
                json.toString());
        await().atMost(STARTED).until(() -> lanes.out().contains("paced at 2,000/s"));

        lanes.process().destroy(); // SIGTERM

        assertThat(lanes.process().waitFor(2, TimeUnit.MINUTES))
                .as(lanes.out() + lanes.err())
                .isTrue();
        assertThat(lanes.process().exitValue())
                .as("all handled fails: the load was cut short; %s%s", lanes.out(), lanes.err())
                .isEqualTo(ExitCode.INVARIANT_FAILED);
        assertThat(lanes.out())
                .contains("PASS  per-id order")
                .contains("PASS  nothing lost")
                .contains("FAIL  all handled")
                .contains("PASS  graceful stop")
                .contains("the load was cut short by a signal")
                .contains("Result        FAIL");
        assertThat(Files.readString(json)).contains("\"passed\" : false");
    }

    /** {@code lanes ARGS} in a JVM of its own, on this test's class path, its output going to files in {@code dir}. */
    private static Lanes lanes(Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                LanesCli.class.getName()));
        command.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        return new Lanes(process, out, err);
    }

    /** A {@code lanes} process and the files its standard output and error go to. */
    private record Lanes(Process process, Path outFile, Path errFile) {
        String out() {
            return read(outFile);
        }

        String err() {
            return read(errFile);
        }

        private static String read(Path file) {
            try {
                return Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "[cannot read " + file + ": " + e + "]";
            }
        }
    }

    /** Whether this process ignores SIGINT (signal 2), as a child started in the background inherits it. */
    private static boolean sigintIgnored() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return false;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(
                                        line.substring("SigIgn:".length()).trim(), 16)
                                & (1L << 1))
                        != 0;
            }
        }
        return false;
    }

    private static void signal(Process process, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .redirectErrorStream(true)
                .start();
        assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }
}
