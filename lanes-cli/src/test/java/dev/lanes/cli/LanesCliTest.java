package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class LanesCliTest {

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = LanesCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        int exitCode = commandLine.execute(args);
        return new Result(exitCode, out.toString(), err.toString());
    }

    record Result(int exitCode, String out, String err) {}

    @ParameterizedTest
    @ValueSource(strings = {"keyed", "HASHED"})
    void aShortDemoPassesEveryInvariant(String strategy) {
        Result result = run("demo", "--messages", "6000", "--aggregates", "100", "--strategy", strategy);

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(result.out())
                .contains("per-id order   PASS (0 violations)")
                .contains("nothing lost   PASS (6,000 of 6,000 settled)")
                .contains("parked 1");
    }

    @Test
    void aBadOptionValueGetsUsageAndNamesTheValue() {
        Result result = run("demo", "--strategy", "sideways");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("'sideways'").contains("Usage: lanes demo");
    }

    @Test
    void aNonPositiveCountIsRejectedNamingTheValue() {
        Result result = run("demo", "--messages", "-5");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("must be positive: -5");
    }
}
