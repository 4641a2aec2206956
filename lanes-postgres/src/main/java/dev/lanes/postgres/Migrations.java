package dev.lanes.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Versioned schema migrations, shipped as class path resources {@code db/lanes/V<n>__<description>.sql} and applied in
 * order, each once. {@code lanes_schema_version} records every applied version with the SHA-256 of its script.
 *
 * <p>{@link #apply(DataSource)} is idempotent and safe to run from several instances at once: it takes a transaction
 * advisory lock, applies the missing versions and records them in the same transaction (PostgreSQL DDL is
 * transactional), so a failed script leaves nothing behind. A recorded version whose script changed since is an error
 * (edit nothing that was applied; add a version). Versions recorded by a newer release are left alone.
 *
 * <p>Tables go to the connection's current schema: choose another with {@code currentSchema} in the JDBC URL.
 */
public final class Migrations {
    private static final Logger log = LoggerFactory.getLogger(Migrations.class);

    /** The class path folder of the scripts. */
    public static final String LOCATION = "db/lanes/";

    /** Arbitrary constant key of the advisory lock that serializes concurrent migrators. */
    private static final long LOCK_KEY = 0x4c616e6573L; // "Lanes"

    private static final String OPERATION = "migrating the Lanes schema";

    /** One script: its version, description and resource name. */
    record Migration(int version, String description, String resource) {}

    static final List<Migration> ALL = List.of(
            new Migration(1, "event_store", "V1__event_store.sql"),
            new Migration(2, "global_position", "V2__global_position.sql"),
            new Migration(3, "tracking_checkpoints", "V3__tracking_checkpoints.sql"),
            new Migration(4, "dead_letters", "V4__dead_letters.sql"),
            new Migration(5, "partition_owners", "V5__partition_owners.sql"),
            new Migration(6, "dead_letter_replies", "V6__dead_letter_replies.sql"),
            new Migration(7, "dead_letter_commands", "V7__dead_letter_commands.sql"),
            new Migration(8, "command_refusals", "V8__command_refusals.sql"),
            new Migration(9, "deadlines", "V9__deadlines.sql"),
            new Migration(10, "tracking_segments", "V10__tracking_segments.sql"),
            new Migration(11, "request_id_first", "V11__request_id_first.sql"),
            new Migration(12, "scaled_positions", "V12__scaled_positions.sql"));

    private Migrations() {}

    /** The version the scripts of this release bring the schema to. */
    public static int latestVersion() {
        return ALL.get(ALL.size() - 1).version();
    }

    /**
     * Applies the missing migrations. Blocking.
     *
     * @return the schema version now recorded (at least {@link #latestVersion()})
     * @throws PostgresUnavailableException if the server cannot be reached
     * @throws PostgresStoreException if a script fails (nothing of it stays)
     * @throws IllegalStateException if a script of an applied version was changed since
     */
    public static int apply(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        try (Connection connection = dataSource.getConnection()) {
            return applyAll(connection);
        } catch (SQLException e) {
            throw Jdbc.translate(Jdbc.describe(dataSource), OPERATION, e);
        }
    }

    static int apply(Jdbc jdbc) {
        return jdbc.execute(OPERATION, Migrations::applyAll);
    }

    private static int applyAll(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            int version = applyAllInTransaction(connection);
            connection.commit();
            return version;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private static int applyAllInTransaction(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SELECT pg_advisory_xact_lock(" + LOCK_KEY + ")");
            statement.execute("CREATE TABLE IF NOT EXISTS lanes_schema_version ("
                    + " version INTEGER PRIMARY KEY,"
                    + " description TEXT NOT NULL,"
                    + " checksum TEXT NOT NULL,"
                    + " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
        }
        Map<Integer, String> applied = new HashMap<>();
        int recorded = 0;
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT version, checksum FROM lanes_schema_version")) {
            while (rows.next()) {
                applied.put(rows.getInt(1), rows.getString(2));
                recorded = Math.max(recorded, rows.getInt(1));
            }
        }
        for (Migration migration : ALL) {
            String script = read(migration);
            String checksum = sha256(script);
            String appliedChecksum = applied.get(migration.version());
            if (appliedChecksum != null) {
                if (!appliedChecksum.equals(checksum)) {
                    throw new IllegalStateException("Schema version " + migration.version() + " ("
                            + migration.resource() + ") was applied with checksum " + appliedChecksum
                            + " but the script now has " + checksum + ": applied migrations must not change");
                }
                continue;
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute(script);
            }
            try (PreparedStatement record = connection.prepareStatement(
                    "INSERT INTO lanes_schema_version (version, description, checksum) VALUES (?, ?, ?)")) {
                record.setInt(1, migration.version());
                record.setString(2, migration.description());
                record.setString(3, checksum);
                record.executeUpdate();
            }
            log.info("Applied Lanes schema version {} ({})", migration.version(), migration.resource());
            recorded = Math.max(recorded, migration.version());
        }
        return recorded;
    }

    static String read(Migration migration) {
        String path = LOCATION + migration.resource();
        try (InputStream in = Migrations.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Migration script " + path + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read migration script " + path, e);
        }
    }

    static String sha256(String script) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(script.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
