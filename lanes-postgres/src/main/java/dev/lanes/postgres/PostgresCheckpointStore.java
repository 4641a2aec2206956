package dev.lanes.postgres;

import dev.lanes.eventsourcing.CheckpointStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * A {@link CheckpointStore} in PostgreSQL: one row per processor name in {@code lanes_tracking_checkpoints} (schema
 * version 3), over the pool and scheduler of the {@link PostgresEventStore} that made it ({@link
 * PostgresEventStore#checkpointStore()}).
 *
 * <p><b>Claims.</b> A claim is the row's {@code owner} and {@code claimed_until}, set by one {@code INSERT ... ON
 * CONFLICT DO UPDATE ... WHERE} statement that succeeds only when the row has no owner, the caller owns it, or the
 * claim has expired on the database's clock. PostgreSQL locks the row for the update, so of two instances racing for
 * an expired claim exactly one sees its row updated; the other gets {@code false}. A save updates the position only
 * {@code WHERE owner = ?}, so an instance whose claim was taken over can no longer move the checkpoint.
 */
public final class PostgresCheckpointStore implements CheckpointStore {
    private static final String CLAIM = "INSERT INTO lanes_tracking_checkpoints (processor, owner, claimed_until)"
            + " VALUES (?, ?, now() + ? * interval '1 millisecond')"
            + " ON CONFLICT (processor) DO UPDATE SET owner = EXCLUDED.owner, claimed_until = EXCLUDED.claimed_until"
            + " WHERE lanes_tracking_checkpoints.owner IS NULL OR lanes_tracking_checkpoints.owner = EXCLUDED.owner"
            + " OR lanes_tracking_checkpoints.claimed_until <= now()";
    private static final String LOAD = "SELECT position FROM lanes_tracking_checkpoints WHERE processor = ?";
    private static final String SAVE =
            "UPDATE lanes_tracking_checkpoints SET position = ? WHERE processor = ? AND owner = ?";
    private static final String RELEASE = "UPDATE lanes_tracking_checkpoints SET owner = NULL, claimed_until = NULL"
            + " WHERE processor = ? AND owner = ?";

    private final Jdbc jdbc;

    PostgresCheckpointStore(Jdbc jdbc) {
        this.jdbc = jdbc;
    }

    @Override
    public Mono<Boolean> claim(String processor, String owner, Duration lease) {
        return Mono.defer(() -> {
            check(processor, owner);
            if (lease.isNegative() || lease.isZero()) {
                throw new IllegalArgumentException("lease must be positive: " + lease);
            }
            return jdbc.call("claiming " + processor + " for " + owner, connection -> {
                try (PreparedStatement claim = connection.prepareStatement(CLAIM)) {
                    claim.setString(1, processor);
                    claim.setString(2, owner);
                    claim.setLong(3, lease.toMillis());
                    return claim.executeUpdate() == 1;
                }
            });
        });
    }

    @Override
    public Mono<Long> load(String processor) {
        return Mono.defer(() -> {
            requireName(processor, "processor");
            return jdbc.call("loading the checkpoint of " + processor, connection -> {
                try (PreparedStatement load = connection.prepareStatement(LOAD)) {
                    load.setString(1, processor);
                    try (ResultSet rows = load.executeQuery()) {
                        return rows.next() ? rows.getLong(1) : 0L;
                    }
                }
            });
        });
    }

    @Override
    public Mono<Boolean> save(String processor, String owner, long position) {
        return Mono.defer(() -> {
            check(processor, owner);
            if (position < 0) {
                throw new IllegalArgumentException("position must not be negative: " + position);
            }
            return jdbc.call("saving checkpoint " + position + " of " + processor, connection -> {
                try (PreparedStatement save = connection.prepareStatement(SAVE)) {
                    save.setLong(1, position);
                    save.setString(2, processor);
                    save.setString(3, owner);
                    return save.executeUpdate() == 1;
                }
            });
        });
    }

    @Override
    public Mono<Void> release(String processor, String owner) {
        return Mono.defer(() -> {
                    check(processor, owner);
                    return jdbc.call("releasing " + processor + " by " + owner, connection -> {
                        try (PreparedStatement release = connection.prepareStatement(RELEASE)) {
                            release.setString(1, processor);
                            release.setString(2, owner);
                            return release.executeUpdate();
                        }
                    });
                })
                .then();
    }

    private void check(String processor, String owner) {
        requireName(processor, "processor");
        requireName(owner, "owner");
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
