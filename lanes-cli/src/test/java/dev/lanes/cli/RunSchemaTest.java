package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.cli.command.ExitCode;
import dev.lanes.testsupport.TestPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --store postgres} makes a fresh schema {@code lanes_run_<millis>} per run: kept for inspection by default,
 * dropped when the run ends with {@code --drop-schema}, so that repeated benchmark runs leave nothing behind.
 */
class RunSchemaTest {

    @Test
    void theRunsSchemaIsKeptByDefaultAndDroppedWithDropSchema() throws SQLException {
        String database = TestPostgres.emptyDatabase();

        Cli.Result kept = bench(database);
        assertThat(kept.exitCode()).as(kept.out() + kept.err()).isZero();
        List<String> afterKept = runSchemas(database);
        assertThat(afterKept).hasSize(1);

        Cli.Result dropped = bench(database, "--drop-schema");
        assertThat(dropped.exitCode()).as(dropped.out() + dropped.err()).isZero();
        assertThat(dropped.err()).doesNotContain("was not dropped");
        assertThat(runSchemas(database))
                .as("only the first run's schema is left")
                .isEqualTo(afterKept);
    }

    @Test
    void dropSchemaWithoutAPostgresStoreIsRefused() {
        Cli.Result result = Cli.run("bench", "--scenario", "command", "--drop-schema", "-q");

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err()).contains("--drop-schema needs --store postgres");
    }

    private static Cli.Result bench(String database, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "bench",
                "--scenario",
                "command",
                "--store",
                "postgres",
                "--jdbc-url",
                database,
                "--warmup",
                "0s",
                "--messages",
                "50",
                "--aggregates",
                "5",
                "--clients",
                "2",
                "-q"));
        args.addAll(List.of(more));
        return Cli.run(args.toArray(String[]::new));
    }

    private static List<String> runSchemas(String database) throws SQLException {
        List<String> schemas = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(database, TestPostgres.USER, null);
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'lanes_run_%' ORDER BY nspname")) {
            while (rows.next()) {
                schemas.add(rows.getString(1));
            }
        }
        return schemas;
    }
}
