package dev.lanes.postgres;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.deadline.Deadline;
import dev.lanes.deadline.DeadlineStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * A {@link DeadlineStore} in PostgreSQL: one row per deadline in {@code lanes_deadlines} (schema version 9), its command
 * written by the store's {@link EventSerializer}, over the pool and scheduler of the {@link PostgresEventStore} that
 * made it ({@link PostgresEventStore#deadlineStore()}).
 *
 * <p><b>Claims.</b> {@link #claimDue} is one statement: it selects the due rows that nobody holds {@code FOR UPDATE SKIP
 * LOCKED} and sets their {@code claimed_until} in the same statement, so of several instances claiming at once each row
 * goes to one of them, and none waits for rows another is claiming. Times are the callers' clocks (the runners').
 */
public final class PostgresDeadlineStore implements DeadlineStore {
    private static final String COLUMNS = "deadline_id, context_name, aggregate_name, aggregate_id, tenant_id, name,"
            + " due_at, payload_type, payload";
    private static final String SCHEDULE = "INSERT INTO lanes_deadlines (" + COLUMNS + ")"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb) ON CONFLICT (deadline_id) DO UPDATE SET"
            + " context_name = EXCLUDED.context_name, aggregate_name = EXCLUDED.aggregate_name,"
            + " aggregate_id = EXCLUDED.aggregate_id, tenant_id = EXCLUDED.tenant_id, name = EXCLUDED.name,"
            + " due_at = EXCLUDED.due_at, payload_type = EXCLUDED.payload_type, payload = EXCLUDED.payload,"
            + " claimed_until = NULL";
    private static final String CANCEL = "DELETE FROM lanes_deadlines WHERE context_name = ? AND aggregate_name = ?"
            + " AND aggregate_id = ? AND tenant_id = ? AND name = ?";
    private static final String REMOVE = "DELETE FROM lanes_deadlines WHERE deadline_id = ?";
    private static final String CLAIM = "UPDATE lanes_deadlines d SET claimed_until = ? FROM ("
            + " SELECT deadline_id FROM lanes_deadlines WHERE due_at <= ?"
            + " AND (claimed_until IS NULL OR claimed_until <= ?)"
            + " ORDER BY due_at, deadline_id LIMIT ? FOR UPDATE SKIP LOCKED) due"
            + " WHERE d.deadline_id = due.deadline_id RETURNING "
            + COLUMNS.replace("deadline_id,", "d.deadline_id,");
    private static final String RELEASE = "UPDATE lanes_deadlines SET claimed_until = ? WHERE deadline_id = ?";
    private static final String PENDING = "SELECT " + COLUMNS + " FROM lanes_deadlines ORDER BY due_at, deadline_id";
    private static final Comparator<Deadline> EARLIEST =
            Comparator.comparing(Deadline::dueAt).thenComparing(Deadline::id);

    private final Jdbc jdbc;
    private final EventSerializer serializer;

    PostgresDeadlineStore(Jdbc jdbc, EventSerializer serializer) {
        this.jdbc = jdbc;
        this.serializer = serializer;
    }

    @Override
    public Mono<Void> schedule(Deadline deadline) {
        Objects.requireNonNull(deadline, "deadline");
        return Mono.defer(() -> {
                    String type = serializer.typeName(deadline.payload());
                    String json = serializer.serialize(deadline.payload());
                    return jdbc.call("scheduling " + deadline, connection -> {
                        try (PreparedStatement schedule = connection.prepareStatement(SCHEDULE)) {
                            schedule.setString(1, deadline.id());
                            setTarget(schedule, 2, deadline.target());
                            schedule.setString(6, deadline.name());
                            schedule.setObject(7, timestamp(deadline.dueAt()));
                            schedule.setString(8, type);
                            schedule.setString(9, json);
                            return schedule.executeUpdate();
                        }
                    });
                })
                .then();
    }

    @Override
    public Mono<Integer> cancel(AggregateId target, String name) {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(name, "name");
        return jdbc.call("cancelling deadline " + name + " of " + target, connection -> {
            try (PreparedStatement cancel = connection.prepareStatement(CANCEL)) {
                setTarget(cancel, 1, target);
                cancel.setString(5, name);
                return cancel.executeUpdate();
            }
        });
    }

    @Override
    public Mono<Boolean> remove(String id) {
        Objects.requireNonNull(id, "id");
        return jdbc.call("removing deadline " + id, connection -> {
            try (PreparedStatement remove = connection.prepareStatement(REMOVE)) {
                remove.setString(1, id);
                return remove.executeUpdate() == 1;
            }
        });
    }

    @Override
    public Mono<List<Deadline>> claimDue(Instant now, int max, Duration lease) {
        Objects.requireNonNull(now, "now");
        if (max < 1 || lease.isNegative() || lease.isZero()) {
            return Mono.error(new IllegalArgumentException(
                    "max and lease must be positive: " + max + ", " + lease + " (" + this + ")"));
        }
        return jdbc.call("claiming up to " + max + " deadlines due at " + now, connection -> {
            try (PreparedStatement claim = connection.prepareStatement(CLAIM)) {
                claim.setObject(1, timestamp(now.plus(lease)));
                claim.setObject(2, timestamp(now));
                claim.setObject(3, timestamp(now));
                claim.setInt(4, max);
                List<Deadline> claimed = read(claim);
                claimed.sort(EARLIEST);
                return claimed;
            }
        });
    }

    @Override
    public Mono<Void> release(String id, Instant retryAt) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(retryAt, "retryAt");
        return jdbc.call("releasing deadline " + id, connection -> {
                    try (PreparedStatement release = connection.prepareStatement(RELEASE)) {
                        release.setObject(1, timestamp(retryAt));
                        release.setString(2, id);
                        return release.executeUpdate();
                    }
                })
                .then();
    }

    @Override
    public Mono<List<Deadline>> pending() {
        return jdbc.call("listing deadlines", connection -> {
            try (PreparedStatement pending = connection.prepareStatement(PENDING)) {
                return read(pending);
            }
        });
    }

    @Override
    public boolean durable() {
        return true;
    }

    private List<Deadline> read(PreparedStatement statement) throws SQLException {
        List<Deadline> deadlines = new ArrayList<>();
        try (ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                AggregateId target = AggregateId.of(
                        NamedAggregate.of(rows.getString(2), rows.getString(3)), rows.getString(4), rows.getString(5));
                deadlines.add(new Deadline(
                        rows.getString(1),
                        target,
                        rows.getString(6),
                        rows.getObject(7, OffsetDateTime.class).toInstant(),
                        serializer.deserialize(rows.getString(8), rows.getString(9))));
            }
        }
        return deadlines;
    }

    private static void setTarget(PreparedStatement statement, int from, AggregateId target) throws SQLException {
        statement.setString(from, target.contextName());
        statement.setString(from + 1, target.aggregateName());
        statement.setString(from + 2, target.id());
        statement.setString(from + 3, target.tenantId());
    }

    private static OffsetDateTime timestamp(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    @Override
    public String toString() {
        return "PostgresDeadlineStore[" + jdbc.server() + "]";
    }
}
