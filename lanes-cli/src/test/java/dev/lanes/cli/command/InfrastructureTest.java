package dev.lanes.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.cli.Cli;
import java.net.ConnectException;
import java.sql.SQLException;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A database that cannot be reached is one line naming host and port, never a password or a stack trace: exit 3. */
class InfrastructureTest {
    private static final String DEAD_URL = "jdbc:postgresql://127.0.0.1:1/x?user=u&password=secret";

    @ParameterizedTest
    @CsvSource({"demo", "bench --scenario command"})
    void aDeadDatabaseIsOneLineNamingHostAndPortAndExitsWithThree(String command) {
        Cli.Result result = Cli.run(args(command, "--store", "postgres", "--jdbc-url", DEAD_URL, "-q"));

        assertThat(result.exitCode()).as(result.err()).isEqualTo(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
        assertThat(result.err().lines())
                .as(result.err())
                .containsExactly("lanes " + command.split(" ")[0] + ": cannot reach PostgreSQL at 127.0.0.1:1"
                        + " (Connection refused)");
        assertThat(result.out() + result.err()).doesNotContain("secret").doesNotContain("Exception");
    }

    @Test
    void aPasswordGivenAsAnOptionIsNeverShownEither() {
        Cli.Result result = Cli.run(
                "demo",
                "--store",
                "postgres",
                "--jdbc-url",
                "jdbc:postgresql://127.0.0.1:1/x",
                "--db-password",
                "hunter2");

        assertThat(result.exitCode()).isEqualTo(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
        assertThat(result.err()).contains("127.0.0.1:1").doesNotContain("hunter2");
        assertThat(result.err().lines()).hasSize(1);
    }

    @Test
    void aUrlThatIsNotPostgresIsABadOptionAndItsParametersAreNotEchoed() {
        Cli.Result result =
                Cli.run("demo", "--store", "postgres", "--jdbc-url", "jdbc:mysql://127.0.0.1:1/x?password=secret");

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err())
                .contains("'jdbc:mysql://127.0.0.1:1/x?...' is not a PostgreSQL JDBC URL")
                .doesNotContain("secret");
    }

    @Test
    void theReasonIsTheNetworksOwnWordsOrTheFirstLineOfTheSqlErrorWithEveryPasswordScrubbed() {
        PostgresTarget target = Objects.requireNonNull(
                PostgresTarget.parse("jdbc:postgresql://db.example:6543,db2:7000/bank?password=s3cr3t", "0ption"));

        assertThat(target.server()).isEqualTo("db.example:6543,db2:7000");
        assertThat(target.database()).isEqualTo("bank");
        assertThat(target.unavailable(new SQLException("refused", new ConnectException("Connection refused")))
                        .getMessage())
                .isEqualTo("cannot reach PostgreSQL at db.example:6543,db2:7000 (Connection refused)");
        assertThat(target.unavailable(new IllegalStateException(
                                "pool", new SQLException("FATAL: password s3cr3t or 0ption refused\n  detail")))
                        .getMessage())
                .isEqualTo("cannot reach PostgreSQL at db.example:6543,db2:7000 (FATAL: password *** or *** refused)");
    }

    private static String[] args(String command, String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(command.split(" ")));
        args.addAll(java.util.List.of(more));
        return args.toArray(String[]::new);
    }
}
