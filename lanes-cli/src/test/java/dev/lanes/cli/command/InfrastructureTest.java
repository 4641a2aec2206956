package dev.lanes.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.lanes.cli.Cli;
import dev.lanes.postgres.PostgresOptions;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.time.Duration;
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

    @ParameterizedTest
    @CsvSource({"demo", "bench --scenario command"})
    void aServerThatAcceptsButNeverAnswersIsOneLineNamingTheMaskedUrlAndTheTimeoutAndExitsWithThree(String command)
            throws IOException {
        // the kernel accepts the connections into the backlog; nothing ever reads or answers them
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String url = "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/x?user=u&password=secret";
            long started = System.nanoTime();

            Cli.Result result = assertTimeoutPreemptively(
                    Duration.ofSeconds(30),
                    () -> Cli.run(args(command, "--store", "postgres", "--jdbc-url", url, "-q")),
                    "an unresponsive server must not hang the run");

            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .isLessThan(PostgresOptions.DEFAULT.connectTimeout().plusSeconds(10));
            assertThat(result.exitCode()).as(result.err()).isEqualTo(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
            assertThat(result.err().lines())
                    .as(result.err())
                    .containsExactly("lanes " + command.split(" ")[0] + ": cannot reach PostgreSQL at 127.0.0.1:"
                            + silent.getLocalPort() + " (no answer within the connect and login timeout of 5 s;"
                            + " jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/x?user=u&password=***)");
            assertThat(result.out()).isEmpty();
        }
    }

    @Test
    void aOneLetterPasswordMasksNoOtherLetterOfTheLine() {
        Cli.Result result = Cli.run(
                "demo", "--store", "postgres", "--jdbc-url", "jdbc:postgresql://127.0.0.1:1/x", "--db-password", "e");

        assertThat(result.exitCode()).isEqualTo(ExitCode.INFRASTRUCTURE_UNAVAILABLE);
        assertThat(result.err().lines())
                .containsExactly("lanes demo: cannot reach PostgreSQL at 127.0.0.1:1 (Connection refused)");
    }

    @Test
    void onlyTheCredentialsOfAUrlInAMessageAreMaskedNeverTheSameLettersElsewhere() {
        PostgresTarget target =
                Objects.requireNonNull(PostgresTarget.parse("jdbc:postgresql://db:5432/bank?user=alice&password=a"));
        SQLException refused = new SQLException("FATAL: password authentication failed for user \"alice\" (url"
                + " jdbc:postgresql://db:5432/bank?user=alice&password=a&ssl=true, proxy"
                + " postgresql://alice:a@proxy:6432/bank, properties {user=alice, password=a})");

        assertThat(target.failed(refused).getMessage())
                .isEqualTo("PostgreSQL at db:5432 failed (FATAL: password authentication failed for user \"alice\""
                        + " (url jdbc:postgresql://db:5432/bank?user=alice&password=***&ssl=true, proxy"
                        + " postgresql://alice:***@proxy:6432/bank, properties {user=alice, password=***}))");
        assertThat(target.maskedUrl()).isEqualTo("jdbc:postgresql://db:5432/bank?user=alice&password=***");
    }

    @Test
    void aTimeoutIsNamedWithTheTimeoutThatEndedTheWaitAndTheMaskedUrl() {
        PostgresTarget target =
                Objects.requireNonNull(PostgresTarget.parse("jdbc:postgresql://db:5432/bank?password=pw"));
        PostgresOptions options = PostgresOptions.DEFAULT.withTimeouts(Duration.ofSeconds(7), Duration.ofSeconds(45));

        assertThat(target.unavailable(new SQLException("Connection attempt timed out.", "08001"), options)
                        .getMessage())
                .isEqualTo("cannot reach PostgreSQL at db:5432 (no answer within the connect and login timeout of 7 s;"
                        + " jdbc:postgresql://db:5432/bank?password=***)");
        assertThat(target.unavailable(
                                new SQLException(
                                        "An I/O error occurred while sending to the backend.",
                                        "08006",
                                        new SocketTimeoutException("Read timed out")),
                                options)
                        .getMessage())
                .isEqualTo("cannot reach PostgreSQL at db:5432 (no answer within the socket timeout of 45 s;"
                        + " jdbc:postgresql://db:5432/bank?password=***)");
        assertThat(target.unavailable(new SQLException("refused", new ConnectException("Connection refused")), options)
                        .getMessage())
                .isEqualTo("cannot reach PostgreSQL at db:5432 (Connection refused)");
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
    void theReasonIsTheNetworksOwnWordsOrTheFirstLineOfTheSqlErrorWithTheUrlsPasswordMasked() {
        PostgresTarget target = Objects.requireNonNull(
                PostgresTarget.parse("jdbc:postgresql://db.example:6543,db2:7000/bank?password=s3cr3t"));

        assertThat(target.server()).isEqualTo("db.example:6543,db2:7000");
        assertThat(target.database()).isEqualTo("bank");
        assertThat(target.unavailable(new SQLException("refused", new ConnectException("Connection refused")))
                        .getMessage())
                .isEqualTo("cannot reach PostgreSQL at db.example:6543,db2:7000 (Connection refused)");
        assertThat(target.unavailable(new IllegalStateException(
                                "pool",
                                new SQLException("FATAL: refused for " + "jdbc:postgresql://db.example:6543,"
                                        + "db2:7000/bank?password=s3cr3t\n  detail")))
                        .getMessage())
                .isEqualTo("cannot reach PostgreSQL at db.example:6543,db2:7000 (FATAL: refused for"
                        + " jdbc:postgresql://db.example:6543,db2:7000/bank?password=***)");
    }

    private static String[] args(String command, String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(command.split(" ")));
        args.addAll(java.util.List.of(more));
        return args.toArray(String[]::new);
    }
}
