package dev.lanes.kafka;

import dev.lanes.messaging.DomainEventStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The crash test's durable read model: per projection and account, in PostgreSQL, the last version applied and the
 * balance, so that it outlives a killed instance as the store does. Several instances (and a killed one's open
 * transaction) write it at once: each stream is applied in one transaction that locks its account's row first.
 *
 * <p>A stream at or below the row's version is a redelivery and changes nothing; one past the next version is a gap:
 * it is recorded in {@code crash_violations} (and applied, so that one gap is reported once).
 */
final class CrashProjection {
    /** What one call of {@link #apply} did with its stream. */
    enum Outcome {
        APPLIED,
        REDELIVERED,
        GAP
    }

    /** One account's row: the last version applied and the balance after it. */
    record Row(int version, long balance) {}

    private CrashProjection() {}

    static void createTables(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE crash_projection (projection TEXT NOT NULL, account TEXT NOT NULL,"
                    + " version INTEGER NOT NULL, balance BIGINT NOT NULL, PRIMARY KEY (projection, account))");
            statement.execute("CREATE TABLE crash_violations (projection TEXT NOT NULL, account TEXT NOT NULL,"
                    + " after_version INTEGER NOT NULL, version INTEGER NOT NULL, instance TEXT NOT NULL)");
        }
    }

    /** Applies {@code stream} to the row of its account in {@code projection}; blocking (JDBC). */
    static Outcome apply(DataSource dataSource, String projection, DomainEventStream stream, String instance)
            throws SQLException {
        String account = stream.aggregateId().id();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                Outcome outcome = apply(connection, projection, account, stream, instance);
                connection.commit();
                return outcome;
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        }
    }

    private static Outcome apply(
            Connection connection, String projection, String account, DomainEventStream stream, String instance)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO crash_projection"
                + " (projection, account, version, balance) VALUES (?, ?, 0, 0) ON CONFLICT DO NOTHING")) {
            insert.setString(1, projection);
            insert.setString(2, account);
            insert.executeUpdate();
        }
        int current;
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT version FROM crash_projection WHERE projection = ? AND account = ? FOR UPDATE")) {
            select.setString(1, projection);
            select.setString(2, account);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                current = row.getInt(1);
            }
        }
        if (stream.version() <= current) {
            return Outcome.REDELIVERED;
        }
        Outcome outcome = Outcome.APPLIED;
        if (stream.version() != current + 1) {
            outcome = Outcome.GAP;
            try (PreparedStatement violation = connection.prepareStatement("INSERT INTO crash_violations"
                    + " (projection, account, after_version, version, instance) VALUES (?, ?, ?, ?, ?)")) {
                violation.setString(1, projection);
                violation.setString(2, account);
                violation.setInt(3, current);
                violation.setInt(4, stream.version());
                violation.setString(5, instance);
                violation.executeUpdate();
            }
        }
        try (PreparedStatement update = connection.prepareStatement("UPDATE crash_projection"
                + " SET version = ?, balance = balance + ? WHERE projection = ? AND account = ?")) {
            update.setInt(1, stream.version());
            update.setLong(2, effect(stream));
            update.setString(3, projection);
            update.setString(4, account);
            update.executeUpdate();
        }
        return outcome;
    }

    /** What a stream does to an account's balance. */
    static long effect(DomainEventStream stream) {
        long effect = 0;
        for (Object event : stream.payloads()) {
            if (event instanceof Ledger.Credited credited) {
                effect += credited.amount();
            } else if (event instanceof Ledger.Debited debited) {
                effect -= debited.amount();
            }
        }
        return effect;
    }

    /** The rows of {@code projection} by account. */
    static Map<String, Row> read(Connection connection, String projection) throws SQLException {
        Map<String, Row> rows = new TreeMap<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT account, version, balance FROM crash_projection WHERE projection = ?")) {
            select.setString(1, projection);
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    rows.put(row.getString(1), new Row(row.getInt(2), row.getLong(3)));
                }
            }
        }
        return rows;
    }

    /** Every gap recorded, one line each: {@code gap in projection at account: vN after vM (instance)}. */
    static List<String> violations(Connection connection) throws SQLException {
        List<String> violations = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT projection, account, after_version, version, instance FROM crash_violations")) {
            while (row.next()) {
                violations.add("gap in " + row.getString(1) + " at " + row.getString(2) + ": v" + row.getInt(4)
                        + " after v" + row.getInt(3) + " (" + row.getString(5) + ")");
            }
        }
        return violations;
    }
}
