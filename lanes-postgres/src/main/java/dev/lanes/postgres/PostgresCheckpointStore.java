package dev.lanes.postgres;

import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.eventsourcing.SegmentCheckpoint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * A {@link CheckpointStore} in PostgreSQL: one row per processor name and segment in {@code
 * lanes_tracking_checkpoints} (schema versions 3 and 10), and the instances' heartbeats in {@code
 * lanes_tracking_instances}, over the pool and scheduler of the {@link PostgresEventStore} that made it ({@link
 * PostgresEventStore#checkpointStore()}).
 *
 * <p><b>Claims.</b> A claim is the row's {@code owner} and {@code claimed_until}, set by one statement that succeeds
 * only when the row has no owner, the caller owns it, or the claim has expired on the database's clock. PostgreSQL
 * locks the row for the update, so of two instances racing for an expired claim exactly one sees its row updated; the
 * other gets {@code false}. A save updates the position only {@code WHERE owner = ?}, so an instance whose claim was
 * taken over can no longer move the checkpoint.
 *
 * <p><b>Segments.</b> {@link #segments} inserts a processor's rows in one transaction under an advisory lock on its
 * name, so two instances started with different counts cannot both record theirs; a processor whose row was saved
 * before schema version 10 is segment 0 of 1.
 */
public final class PostgresCheckpointStore implements CheckpointStore {
    private static final String TABLE = "lanes_tracking_checkpoints";
    private static final String FREE =
            " (" + TABLE + ".owner IS NULL OR " + TABLE + ".owner = ? OR " + TABLE + ".claimed_until <= now())";
    // segment 0 of a processor without rows is created as the single segment of one (as before segments existed)
    private static final String CLAIM_FIRST = "INSERT INTO " + TABLE + " (processor, segment, owner, claimed_until)"
            + " VALUES (?, 0, ?, now() + ? * interval '1 millisecond')"
            + " ON CONFLICT (processor, segment) DO UPDATE SET owner = EXCLUDED.owner,"
            + " claimed_until = EXCLUDED.claimed_until"
            + " WHERE " + TABLE + ".owner IS NULL OR " + TABLE + ".owner = EXCLUDED.owner"
            + " OR " + TABLE + ".claimed_until <= now()";
    private static final String CLAIM = "UPDATE " + TABLE + " SET owner = ?,"
            + " claimed_until = now() + ? * interval '1 millisecond'"
            + " WHERE processor = ? AND segment = ? AND" + FREE;
    private static final String EXISTS = "SELECT segment_count FROM " + TABLE + " WHERE processor = ? LIMIT 1";
    private static final String LOAD = "SELECT position FROM " + TABLE + " WHERE processor = ? AND segment = ?";
    private static final String SAVE =
            "UPDATE " + TABLE + " SET position = ? WHERE processor = ? AND segment = ?" + " AND owner = ?";
    private static final String RELEASE = "UPDATE " + TABLE + " SET owner = NULL, claimed_until = NULL"
            + " WHERE processor = ? AND segment = ? AND owner = ?";
    private static final String COUNT = "SELECT DISTINCT segment_count FROM " + TABLE + " WHERE processor = ?";
    private static final String CREATE = "INSERT INTO " + TABLE + " (processor, segment, segment_count)"
            + " SELECT ?, s, ? FROM generate_series(0, ? - 1) s";
    private static final String HEARTBEAT = "INSERT INTO lanes_tracking_instances (processor, owner, alive_until)"
            + " VALUES (?, ?, now() + ? * interval '1 millisecond')"
            + " ON CONFLICT (processor, owner) DO UPDATE SET alive_until = EXCLUDED.alive_until";
    private static final String FORGET_DEAD =
            "DELETE FROM lanes_tracking_instances WHERE processor = ? AND alive_until <= now()";
    private static final String ALIVE = "SELECT count(*) FROM lanes_tracking_instances WHERE processor = ?";
    private static final String LEAVE = "DELETE FROM lanes_tracking_instances WHERE processor = ? AND owner = ?";
    private static final String LIST = "SELECT segment, segment_count, position, owner, claimed_until, paused,"
            + " requested_checkpoint FROM " + TABLE + " WHERE processor = ? ORDER BY segment";
    private static final String PROCESSORS = "SELECT DISTINCT processor FROM " + TABLE + " ORDER BY processor";
    private static final String PAUSE = "UPDATE " + TABLE + " SET paused = ? WHERE processor = ? AND segment = ?";
    private static final String REQUEST_SEEK =
            "UPDATE " + TABLE + " SET requested_checkpoint = ? WHERE processor = ? AND segment = ?";
    private static final String SEEK = "UPDATE " + TABLE + " SET position = ?, requested_checkpoint ="
            + " CASE WHEN requested_checkpoint = ? THEN NULL ELSE requested_checkpoint END"
            + " WHERE processor = ? AND segment = ? AND owner = ?";

    private final Jdbc jdbc;

    PostgresCheckpointStore(Jdbc jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public Mono<Integer> segments(String processor, int count) {
        return Mono.defer(() -> {
            requireName(processor, "processor");
            Segment.requireCount(count);
            requireOpen();
            return jdbc.call("recording " + count + " segment(s) of " + processor, connection -> {
                boolean autoCommit = connection.getAutoCommit();
                connection.setAutoCommit(false);
                try {
                    int recorded = recordSegments(connection, processor, count);
                    connection.commit();
                    return recorded;
                } catch (SQLException | RuntimeException e) {
                    connection.rollback();
                    throw e;
                } finally {
                    connection.setAutoCommit(autoCommit);
                }
            });
        });
    }

    private static int recordSegments(Connection connection, String processor, int count) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT pg_advisory_xact_lock(?, hashtext(?))")) {
            lock.setInt(1, 0x4c616e65); // "Lane": the key space of segment counts
            lock.setString(2, processor);
            lock.execute();
        }
        List<Integer> counts = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(COUNT)) {
            select.setString(1, processor);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    counts.add(rows.getInt(1));
                }
            }
        }
        if (counts.isEmpty()) {
            try (PreparedStatement create = connection.prepareStatement(CREATE)) {
                create.setString(1, processor);
                create.setInt(2, count);
                create.setInt(3, count);
                create.executeUpdate();
            }
            return count;
        }
        if (counts.size() != 1 || counts.get(0) != count) {
            throw new IllegalStateException("Processor " + processor + " has " + counts + " segment(s) with their"
                    + " checkpoints in " + TABLE + ", but is started with " + count + ": checkpoints are not split"
                    + " or merged; start it with " + counts.get(0) + " segment(s), or give the rebuilt projection a"
                    + " new processor name");
        }
        return count;
    }

    @Override
    public Mono<Boolean> claim(String processor, int segment, String owner, Duration lease) {
        return Mono.defer(() -> {
            check(processor, owner);
            if (lease.isNegative() || lease.isZero()) {
                throw new IllegalArgumentException("lease must be positive: " + lease);
            }
            return jdbc.call("claiming segment " + segment + " of " + processor + " for " + owner, connection -> {
                if (segment == 0) {
                    try (PreparedStatement claim = connection.prepareStatement(CLAIM_FIRST)) {
                        claim.setString(1, processor);
                        claim.setString(2, owner);
                        claim.setLong(3, lease.toMillis());
                        return claim.executeUpdate() == 1;
                    }
                }
                try (PreparedStatement claim = connection.prepareStatement(CLAIM)) {
                    claim.setString(1, owner);
                    claim.setLong(2, lease.toMillis());
                    claim.setString(3, processor);
                    claim.setInt(4, segment);
                    claim.setString(5, owner);
                    if (claim.executeUpdate() == 1) {
                        return true;
                    }
                }
                requireSegment(connection, processor, segment);
                return false;
            });
        });
    }

    private static void requireSegment(Connection connection, String processor, int segment) throws SQLException {
        try (PreparedStatement exists = connection.prepareStatement(EXISTS)) {
            exists.setString(1, processor);
            try (ResultSet rows = exists.executeQuery()) {
                int count = rows.next() ? rows.getInt(1) : 0;
                if (segment < 0 || segment >= count) {
                    throw new IllegalArgumentException("Processor " + processor + " has no segment " + segment
                            + " (it has " + (count == 0 ? "no segments recorded" : count + " segment(s)") + ")");
                }
            }
        }
    }

    @Override
    public Mono<Long> load(String processor, int segment) {
        return Mono.defer(() -> {
            requireName(processor, "processor");
            return jdbc.call("loading the checkpoint of segment " + segment + " of " + processor, connection -> {
                try (PreparedStatement load = connection.prepareStatement(LOAD)) {
                    load.setString(1, processor);
                    load.setInt(2, segment);
                    try (ResultSet rows = load.executeQuery()) {
                        return rows.next() ? rows.getLong(1) : 0L;
                    }
                }
            });
        });
    }

    @Override
    public Mono<Boolean> save(String processor, int segment, String owner, long position) {
        return Mono.defer(() -> {
            check(processor, owner);
            requirePosition(position);
            return jdbc.call(
                    "saving checkpoint " + position + " of segment " + segment + " of " + processor,
                    connection -> update(connection, SAVE, position, processor, segment, owner) == 1);
        });
    }

    @Override
    public Mono<Void> release(String processor, int segment, String owner) {
        return Mono.defer(() -> {
                    check(processor, owner);
                    return jdbc.call(
                            "releasing segment " + segment + " of " + processor + " by " + owner,
                            connection -> update(connection, RELEASE, null, processor, segment, owner));
                })
                .then();
    }

    @Override
    public Mono<Integer> heartbeat(String processor, String owner, Duration lease) {
        return Mono.defer(() -> {
            check(processor, owner);
            if (lease.isNegative() || lease.isZero()) {
                throw new IllegalArgumentException("lease must be positive: " + lease);
            }
            return jdbc.call("the heartbeat of " + owner + " for " + processor, connection -> {
                try (PreparedStatement beat = connection.prepareStatement(HEARTBEAT)) {
                    beat.setString(1, processor);
                    beat.setString(2, owner);
                    beat.setLong(3, lease.toMillis());
                    beat.executeUpdate();
                }
                try (PreparedStatement forget = connection.prepareStatement(FORGET_DEAD)) {
                    forget.setString(1, processor);
                    forget.executeUpdate();
                }
                try (PreparedStatement alive = connection.prepareStatement(ALIVE)) {
                    alive.setString(1, processor);
                    try (ResultSet rows = alive.executeQuery()) {
                        rows.next();
                        return rows.getInt(1);
                    }
                }
            });
        });
    }

    @Override
    public Mono<Void> leave(String processor, String owner) {
        return Mono.defer(() -> {
                    check(processor, owner);
                    return jdbc.call("removing " + owner + " from the instances of " + processor, connection -> {
                        try (PreparedStatement leave = connection.prepareStatement(LEAVE)) {
                            leave.setString(1, processor);
                            leave.setString(2, owner);
                            return leave.executeUpdate();
                        }
                    });
                })
                .then();
    }

    @Override
    public Mono<List<SegmentCheckpoint>> checkpoints(String processor) {
        return Mono.defer(() -> {
            requireName(processor, "processor");
            requireOpen();
            return jdbc.call("listing the segments of " + processor, connection -> {
                List<SegmentCheckpoint> all = new ArrayList<>();
                try (PreparedStatement list = connection.prepareStatement(LIST)) {
                    list.setString(1, processor);
                    try (ResultSet rows = list.executeQuery()) {
                        while (rows.next()) {
                            OffsetDateTime until = rows.getObject(5, OffsetDateTime.class);
                            long requested = rows.getLong(7);
                            boolean none = rows.wasNull();
                            all.add(new SegmentCheckpoint(
                                    processor,
                                    new Segment(rows.getInt(1), rows.getInt(2)),
                                    rows.getLong(3),
                                    rows.getString(4),
                                    until == null ? null : until.toInstant(),
                                    rows.getBoolean(6),
                                    none ? null : requested));
                        }
                    }
                }
                return List.copyOf(all);
            });
        });
    }

    @Override
    public Mono<List<String>> processors() {
        return Mono.defer(() -> {
            requireOpen();
            return jdbc.call("listing the tracking processors", connection -> {
                List<String> names = new ArrayList<>();
                try (PreparedStatement list = connection.prepareStatement(PROCESSORS);
                        ResultSet rows = list.executeQuery()) {
                    while (rows.next()) {
                        names.add(rows.getString(1));
                    }
                }
                return List.copyOf(names);
            });
        });
    }

    @Override
    public Mono<Boolean> pause(String processor, int segment, boolean paused) {
        return Mono.defer(() -> {
            requireName(processor, "processor");
            requireOpen();
            return jdbc.call(
                    (paused ? "pausing" : "resuming") + " segment " + segment + " of " + processor, connection -> {
                        try (PreparedStatement pause = connection.prepareStatement(PAUSE)) {
                            pause.setBoolean(1, paused);
                            pause.setString(2, processor);
                            pause.setInt(3, segment);
                            return pause.executeUpdate() == 1;
                        }
                    });
        });
    }

    @Override
    public Mono<Boolean> requestSeek(String processor, int segment, long checkpoint) {
        return Mono.defer(() -> {
            requireName(processor, "processor");
            requirePosition(checkpoint);
            requireOpen();
            return jdbc.call(
                    "requesting checkpoint " + checkpoint + " of segment " + segment + " of " + processor,
                    connection -> {
                        try (PreparedStatement request = connection.prepareStatement(REQUEST_SEEK)) {
                            request.setLong(1, checkpoint);
                            request.setString(2, processor);
                            request.setInt(3, segment);
                            return request.executeUpdate() == 1;
                        }
                    });
        });
    }

    @Override
    public Mono<Boolean> seek(String processor, int segment, String owner, long checkpoint) {
        return Mono.defer(() -> {
            check(processor, owner);
            requirePosition(checkpoint);
            return jdbc.call(
                    "moving segment " + segment + " of " + processor + " to checkpoint " + checkpoint, connection -> {
                        try (PreparedStatement seek = connection.prepareStatement(SEEK)) {
                            seek.setLong(1, checkpoint);
                            seek.setLong(2, checkpoint);
                            seek.setString(3, processor);
                            seek.setInt(4, segment);
                            seek.setString(5, owner);
                            return seek.executeUpdate() == 1;
                        }
                    });
        });
    }

    /** {@code sql} with (position if not null,) processor, segment, owner bound; the rows it changed. */
    private static int update(
            Connection connection, String sql, @Nullable Long position, String processor, int segment, String owner)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            int next = 1;
            if (position != null) {
                statement.setLong(next++, position);
            }
            statement.setString(next++, processor);
            statement.setInt(next++, segment);
            statement.setString(next, owner);
            return statement.executeUpdate();
        }
    }

    private static void requirePosition(long position) {
        if (position < 0) {
            throw new IllegalArgumentException("position must not be negative: " + position);
        }
    }

    private void check(String processor, String owner) {
        requireName(processor, "processor");
        requireName(owner, "owner");
        requireOpen();
    }

    private void requireOpen() {
        if (jdbc.isClosed()) {
            throw new IllegalStateException("The checkpoint store on " + jdbc.server() + " is closed");
        }
    }

    private static void requireName(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank: '" + value + "'");
        }
    }

    @Override
    public String toString() {
        return "PostgresCheckpointStore[" + jdbc.server() + "]";
    }
}
