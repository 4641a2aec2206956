package dev.lanes.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.Snapshot;
import dev.lanes.eventsourcing.SnapshotStore;
import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * A {@link SnapshotStore} in PostgreSQL: the latest snapshot per aggregate in {@code lanes_snapshots}, its state as
 * {@code jsonb} with its type name. A save is one upsert that replaces the stored row only when the new version is
 * higher, so concurrent saves (also from other instances) never go back in time.
 *
 * <p>A stored state that can no longer be read (its class was renamed or changed incompatibly) is logged and treated as
 * no snapshot: the aggregate is then replayed from its events, which stay the source of truth.
 *
 * <p>Every JDBC call runs on the store's bounded scheduler, as in {@link PostgresEventStore}.
 */
public final class PostgresSnapshotStore implements SnapshotStore, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PostgresSnapshotStore.class);
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private static final String KEY = "tenant_id = ? AND context_name = ? AND aggregate_name = ? AND aggregate_id = ?";
    private static final String UPSERT = "INSERT INTO lanes_snapshots (tenant_id, context_name, aggregate_name,"
            + " aggregate_id, version, state_type, state, created_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, CAST(? AS jsonb), ?)"
            + " ON CONFLICT (tenant_id, context_name, aggregate_name, aggregate_id) DO UPDATE"
            + " SET version = EXCLUDED.version, state_type = EXCLUDED.state_type, state = EXCLUDED.state,"
            + " created_at = EXCLUDED.created_at"
            + " WHERE lanes_snapshots.version < EXCLUDED.version";
    private static final String SELECT =
            "SELECT version, state_type, state::text, created_at FROM lanes_snapshots WHERE " + KEY;

    private final Jdbc jdbc;
    private final boolean ownsJdbc;
    private final StreamCodec codec;

    /** Over a data source the caller owns and closes, with the {@link JacksonEventSerializer}. */
    public PostgresSnapshotStore(DataSource dataSource) {
        this(dataSource, new JacksonEventSerializer());
    }

    public PostgresSnapshotStore(DataSource dataSource, EventSerializer serializer) {
        this(Jdbc.over(dataSource, Jdbc.threadsFor(dataSource)), true, serializer);
    }

    PostgresSnapshotStore(Jdbc jdbc, boolean ownsJdbc, EventSerializer serializer) {
        this.jdbc = jdbc;
        this.ownsJdbc = ownsJdbc;
        this.codec = new StreamCodec(Objects.requireNonNull(serializer, "serializer"));
    }

    @Override
    public Mono<Snapshot> load(AggregateId aggregateId) {
        return Mono.defer(() -> {
            Objects.requireNonNull(aggregateId, "aggregateId");
            requireOpen();
            return jdbc.call("loading the snapshot of " + aggregateId, connection -> {
                        try (PreparedStatement query = connection.prepareStatement(SELECT)) {
                            PostgresEventStore.bindKey(query, 1, aggregateId);
                            try (ResultSet rows = query.executeQuery()) {
                                if (!rows.next()) {
                                    return Optional.<Stored>empty();
                                }
                                return Optional.of(new Stored(
                                        rows.getInt(1),
                                        rows.getString(2),
                                        rows.getString(3),
                                        rows.getObject(4, OffsetDateTime.class)));
                            }
                        }
                    })
                    .flatMap(stored -> Mono.justOrEmpty(stored.flatMap(row -> decode(aggregateId, row))));
        });
    }

    private record Stored(int version, String type, String state, OffsetDateTime createdAt) {}

    private Optional<Snapshot> decode(AggregateId aggregateId, Stored row) {
        try {
            JsonNode state = JSON.readTree(row.state());
            return Optional.of(new Snapshot(
                    aggregateId,
                    row.version(),
                    codec.decode(row.type(), state),
                    row.createdAt().toInstant()));
        } catch (IOException | EventSerializationException unreadable) {
            log.warn(
                    "Ignoring the snapshot of {} at version {}: its state ({}) cannot be read ({}); the aggregate is"
                            + " replayed from its events instead",
                    aggregateId,
                    row.version(),
                    row.type(),
                    unreadable.getMessage());
            return Optional.empty();
        }
    }

    @Override
    public Mono<Void> save(Snapshot snapshot) {
        return Mono.defer(() -> {
                    Objects.requireNonNull(snapshot, "snapshot");
                    requireOpen();
                    Object state = snapshot.state();
                    String type = codec.serializer().typeName(state);
                    String json = codec.serializer().serialize(state);
                    AggregateId id = snapshot.aggregateId();
                    return jdbc.call("saving the snapshot of " + id + " at version " + snapshot.version(), c -> {
                        try (PreparedStatement upsert = c.prepareStatement(UPSERT)) {
                            int i = PostgresEventStore.bindKey(upsert, 1, id);
                            upsert.setInt(i++, snapshot.version());
                            upsert.setString(i++, type);
                            upsert.setString(i++, json);
                            upsert.setObject(
                                    i,
                                    OffsetDateTime.ofInstant(
                                            snapshot.createdAt().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC));
                            return upsert.executeUpdate();
                        }
                    });
                })
                .then();
    }

    private void requireOpen() {
        if (jdbc.isClosed()) {
            throw new IllegalStateException("The snapshot store on " + jdbc.server() + " is closed");
        }
    }

    /** Stops the store's scheduler, unless it shares its event store's (then that store's close does it). */
    @Override
    public void close() {
        if (ownsJdbc) {
            jdbc.close();
        }
    }

    @Override
    public String toString() {
        return "PostgresSnapshotStore[" + jdbc.server() + "]";
    }
}
