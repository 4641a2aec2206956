package dev.lanes.postgres;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.CommandRefusal;
import dev.lanes.eventsourcing.DuplicateAggregateIdException;
import dev.lanes.eventsourcing.DuplicateRequestIdException;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventVersionConflictException;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.eventsourcing.RequestOutcome;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.eventsourcing.SegmentLag;
import dev.lanes.messaging.DomainEventStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * An {@link EventStore} in PostgreSQL: one row per stream in {@code lanes_event_streams}, its events a {@code jsonb}
 * array, keyed by tenant, context, aggregate name and id.
 *
 * <p><b>Writes (group commit).</b> Appends are gathered: at most {@link PostgresOptions#poolSize()} batches are written
 * at once, each of at most {@link PostgresOptions#appendBatchSize()} streams in the order they were appended. An append
 * that finds a writer free is written at once; while every writer is busy appends queue, and a writer that starts while
 * another batch is in flight waits up to {@link PostgresOptions#appendBatchWait()} for its batch to fill. A batch of
 * one stream is one {@code INSERT ... SELECT ... WHERE} statement in its own transaction (one round trip), as before
 * group commit. A larger batch is one transaction of two round trips: one multi-row {@code INSERT ... ON CONFLICT DO
 * NOTHING}, then the commit. A stream is inserted only if it is version 1 or the aggregate holds the previous version,
 * only if the aggregate refused no command of its request id ({@link #recordRefusal}: one probe of the refusals' key),
 * and only if its version and request id are free; a stream the batch did not insert is then appended alone on the
 * same connection, which inserts it (its previous version committed after the batch's snapshot) or fails it, and only
 * it: a gap with {@link IllegalArgumentException},
 * a refused request id with {@link DuplicateRequestIdException#refusedEarlier}, a taken version or request id through
 * the violated unique constraint, by name: the primary key on {@code (aggregate, version)} ({@link
 * DuplicateAggregateIdException} at version 1, {@link EventVersionConflictException} later) and {@code (aggregate,
 * request_id)} ({@link DuplicateRequestIdException}). The request id is never looked up on this path: this is the
 * command path's idempotency check (see {@link EventStore#append}). A batch that fails as a whole with a definite error
 * (rolled back) is retried stream by stream, so a stream the server refuses fails alone; one whose connection fails
 * (the commit's outcome may be unknown) fails every stream of the batch with {@link PostgresUnavailableException}, as a
 * single append whose acknowledgement is lost does.
 *
 * <p><b>Global positions.</b> A stream's position is the id of the transaction that appended it ({@code
 * pg_current_xact_id()}: 64 bits with the epoch, so it never wraps) times {@value #POSITIONS_PER_TRANSACTION}, plus
 * its place in its batch (1 to the batch's size; 0 when it was appended alone: the column's default). Transaction ids
 * are handed out in increasing order but commit in any order. So {@link #readAll} returns only positions below the
 * {@code pg_snapshot_xmin} of the snapshot it reads in, scaled the same way: every transaction with a lower id has
 * ended by then (its rows are visible, or it rolled back and its positions stay unused for good), and every id handed
 * out later is higher. So no row can ever appear below a position a reader has read, whatever order appends commit in.
 * The cost: a row becomes readable only once every transaction that got its id before it (on any table of the whole
 * PostgreSQL cluster: xmin is cluster-wide) has ended, so one long transaction holds tracking readers back until it
 * ends; appends never wait for each other. Positions are therefore sparse. Streams stored before schema version 12 kept
 * their unscaled positions (the transaction's id, or before that a subtransaction's for each stream of a batch; before
 * schema version 2, 1..n in creation order), all below the scaled ones; while a transaction older than that migration
 * is open, a reader keeps the unscaled cut (see {@code V12__scaled_positions.sql}). Restoring a dump into another
 * cluster needs that cluster's transaction counter above the highest stored transaction id ({@code pg_resetwal -x}), or
 * new positions would sort before old ones.
 *
 * <p><b>Reads.</b> A load reads pages of {@link PostgresOptions#pageSize()} streams by version range, the next page
 * only when the current one is consumed and more is requested: memory holds one page at a time, and no connection or
 * transaction stays open between pages.
 *
 * <p><b>Threads.</b> Every JDBC call runs on a bounded scheduler of this store (named {@code lanes-postgres}, one
 * thread per pooled connection), never on the subscriber's thread; results are emitted on that scheduler. Payloads are
 * (de)serialized on the subscriber's thread for writes and on the emitting thread for reads.
 *
 * <p><b>Failures.</b> A refused or lost connection, a pool with no free connection within the connect timeout, or a
 * round trip silent for longer than the socket timeout fail with {@link PostgresUnavailableException} (recoverable);
 * other SQL errors with {@link PostgresStoreException}; unstorable payloads with {@link EventSerializationException}.
 *
 * <p>Timestamps are stored with PostgreSQL's precision (microseconds): a {@code createdAt} with nanoseconds comes back
 * truncated.
 */
public final class PostgresEventStore implements EventStore, AutoCloseable {
    static final String VERSION_CONSTRAINT = "lanes_event_streams_version_pk";
    static final String REQUEST_CONSTRAINT = "lanes_event_streams_request_uk";
    private static final String UNIQUE_VIOLATION = "23505";

    private static final String KEY = "tenant_id = ? AND context_name = ? AND aggregate_name = ? AND aggregate_id = ?";
    /**
     * Whether the version before {@code version} of the aggregate is stored: one probe of the version key by all its
     * columns, as a scalar subquery ({@code NULL}, so false, when there is none). A scalar subquery is never turned
     * into a join, which PostgreSQL could hash over the whole table while it was small and keep that plan cached as it
     * grew; and since schema version 11 the version key is the only index that leads with the aggregate's columns
     * (before, the request-id key did too, and where the statistics said an aggregate has about one stream PostgreSQL
     * could take it and read the aggregate's whole history at every append). The probe is by equality, not "the latest
     * version below this one" read backwards: a backward scan cost about twice the time per stream (18 against 8 to 11
     * us in {@code EXPLAIN ANALYZE} of a batch of 64 on PostgreSQL 15).
     */
    private static String previousVersion(String tenant, String context, String name, String id, String version) {
        return "(SELECT true FROM lanes_event_streams p WHERE p.tenant_id = " + tenant + " AND p.context_name = "
                + context + " AND p.aggregate_name = " + name + " AND p.aggregate_id = " + id + " AND p.version = "
                + version + " - 1)";
    }

    /**
     * Whether the aggregate refused no command of the request id ({@link #recordRefusal}): a refusal holds its request
     * id as a stream does, so an append under it is not stored. A scalar subquery over the refusals' primary key, one
     * probe, never an anti-join that could hash the table.
     */
    private static String notRefused(String tenant, String context, String name, String id, String requestId) {
        return "(SELECT true FROM lanes_command_refusals f WHERE f.tenant_id = " + tenant + " AND f.context_name = "
                + context + " AND f.aggregate_name = " + name + " AND f.aggregate_id = " + id + " AND f.request_id = "
                + requestId + ") IS NULL";
    }

    static final String INSERT = "INSERT INTO lanes_event_streams (tenant_id, context_name, aggregate_name,"
            + " aggregate_id, version, stream_id, request_id, command_id, created_at, headers, events)"
            + " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb)"
            + " WHERE (? = 1 OR " + previousVersion("?", "?", "?", "?", "?") + ") AND "
            + notRefused("?", "?", "?", "?", "?");
    /**
     * The positions a transaction numbers its streams with: its own id times this, plus the stream's place in its batch
     * (1 to the batch's size; 0 for an append alone). Schema version 12 made positions scaled; see {@link #READ_CUT}.
     */
    static final long POSITIONS_PER_TRANSACTION = 65_536;
    // one statement: the streams of the batch at their places, each only if its previous version is stored
    private static final String BATCH_INSERT = "INSERT INTO lanes_event_streams (tenant_id, context_name,"
            + " aggregate_name, aggregate_id, version, stream_id, request_id, command_id, created_at, headers, events,"
            + " position)"
            + " SELECT b.t, b.c, b.a, b.i, b.v, b.s, b.r, b.m, b.at::timestamptz, b.h::jsonb, b.e::jsonb,"
            + " x.top * " + POSITIONS_PER_TRANSACTION + " + b.n"
            + " FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[],"
            + " ?::text[], ?::text[], ?::text[]) WITH ORDINALITY AS b(t, c, a, i, v, s, r, m, at, h, e, n)"
            + " CROSS JOIN (SELECT pg_current_xact_id()::text::bigint AS top) x"
            + " WHERE (b.v = 1 OR " + previousVersion("b.t", "b.c", "b.a", "b.i", "b.v") + ") AND "
            + notRefused("b.t", "b.c", "b.a", "b.i", "b.r")
            + " ON CONFLICT DO NOTHING RETURNING position";
    /**
     * The position below which a reader returns streams: the xmin of its snapshot, scaled. Below it every transaction
     * has ended. While a transaction older than the migration to scaled positions ({@code lanes_position_scale}) is
     * still open, the cut stays unscaled: such a transaction may be a writer of an older release that stores unscaled
     * positions (see {@code V12__scaled_positions.sql}).
     */
    private static final String READ_CUT = "(SELECT CASE WHEN s.xmin > p.boundary THEN s.xmin * "
            + POSITIONS_PER_TRANSACTION + " ELSE s.xmin END"
            + " FROM lanes_position_scale p"
            + " CROSS JOIN (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin) s)";

    private static final String REFUSED =
            "SELECT EXISTS (SELECT 1 FROM lanes_command_refusals WHERE " + KEY + " AND request_id = ?)";
    private static final String STORED_VERSION =
            "SELECT coalesce(max(version), 0) FROM lanes_event_streams WHERE " + KEY;
    private static final String PAGE =
            "SELECT version, stream_id, request_id, command_id, created_at, headers::text, events::text"
                    + " FROM lanes_event_streams WHERE " + KEY + " AND version >= ? AND version <= ?"
                    + " ORDER BY version LIMIT ?";
    // one statement, so the rows and the xmin they are cut at come from one snapshot
    private static final String READ_ALL = "SELECT version, stream_id, request_id, command_id, created_at,"
            + " headers::text, events::text, position, tenant_id, context_name, aggregate_name, aggregate_id"
            + " FROM lanes_event_streams"
            + " WHERE position >= ? AND position < " + READ_CUT
            + " ORDER BY position LIMIT ?";
    private static final String READ_ALL_OF_TYPES = READ_ALL.replace(
            " ORDER BY",
            " AND (context_name, aggregate_name) IN (SELECT * FROM unnest(?::text[], ?::text[])) ORDER BY");
    // a segment's streams: the hash stored with every stream (schema version 10), its low bits the segment
    private static final String READ_SEGMENT_OF_TYPES =
            READ_ALL_OF_TYPES.replace(" ORDER BY", " AND (segment_hash & ?) = ? ORDER BY");
    private static final String LAG = "SELECT (SELECT coalesce(max(position), 0) FROM lanes_event_streams"
            + " WHERE (segment_hash & ?) = ?), count(*), min(created_at) FROM lanes_event_streams"
            + " WHERE position > ? AND (segment_hash & ?) = ?";
    // the request id's streams, then the aggregate among them: see OUTCOMES
    private static final String HAS_REQUEST_ID = "SELECT EXISTS (SELECT 1 FROM (SELECT tenant_id, context_name,"
            + " aggregate_name, aggregate_id FROM lanes_event_streams WHERE request_id = ? OFFSET 0) s WHERE " + KEY
            + ")";
    // the stream of a request id and its refusal, if any, in one statement; column 8 is the lookup's number, 9-11 a
    // refusal's (NULL for a stream). A lookup's streams are read by its request id alone (a lateral subquery, which
    // OFFSET 0 keeps apart: the aggregate's columns are not pushed into it), which only the request-id key serves
    // (schema version 11: the request id is its first column), and then matched to the aggregate. Not one join on all
    // five columns: where the statistics said an aggregate has about one stream, PostgreSQL priced the version key
    // (whose first four columns are the aggregate's) like the request-id key for it, and through the version key a
    // lookup reads the aggregate's whole history. Lateral, it is a probe per lookup, never a hash of the table. A
    // refusal has one key.
    private static final String OUTCOMES = " SELECT s.version, s.stream_id, s.request_id, s.command_id, s.created_at,"
            + " s.headers::text, s.events::text, k.n::int, NULL::text, NULL::text, NULL::text"
            + " FROM k CROSS JOIN LATERAL (SELECT * FROM lanes_event_streams WHERE request_id = k.r OFFSET 0) s"
            + " WHERE s.tenant_id = k.t AND s.context_name = k.c AND s.aggregate_name = k.a AND s.aggregate_id = k.i"
            + " UNION ALL SELECT 0, NULL, f.request_id, f.command_id, f.refused_at, NULL, NULL, k.n::int,"
            + " f.error_type, f.reason, f.command_hash"
            + " FROM k JOIN lanes_command_refusals f ON f.tenant_id = k.t AND f.context_name = k.c"
            + " AND f.aggregate_name = k.a AND f.aggregate_id = k.i AND f.request_id = k.r";
    private static final String BY_REQUEST_ID =
            "WITH k AS (SELECT ?::text AS t, ?::text AS c, ?::text AS a, ?::text AS i, ?::text AS r, 1 AS n)"
                    + OUTCOMES;
    // the lookups of a batch in one statement
    private static final String BY_REQUEST_IDS = "WITH k AS (SELECT * FROM unnest(?::text[], ?::text[], ?::text[],"
            + " ?::text[], ?::text[]) WITH ORDINALITY AS k(t, c, a, i, r, n))" + OUTCOMES;
    private static final String INSERT_REFUSAL = "INSERT INTO lanes_command_refusals (tenant_id, context_name,"
            + " aggregate_name, aggregate_id, request_id, command_id, error_type, reason, command_hash, refused_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING";

    private final Jdbc jdbc;
    private final boolean ownsJdbc;
    private final StreamCodec codec;
    private final PostgresOptions options;
    private final GroupCommit<Encoded, Void> appends;
    private final GroupCommit<Lookup, Found> lookups;

    /**
     * Over a data source the caller owns and closes, with the {@link JacksonEventSerializer}. The store's scheduler has
     * as many threads as a {@code HikariDataSource}'s maximum pool size, else {@link PostgresOptions#DEFAULT}'s.
     */
    public PostgresEventStore(DataSource dataSource) {
        this(dataSource, new JacksonEventSerializer());
    }

    public PostgresEventStore(DataSource dataSource, EventSerializer serializer) {
        this(dataSource, serializer, PostgresOptions.sizedFor(dataSource));
    }

    /**
     * Over a data source the caller owns and closes; {@code options} give the scheduler's thread count ({@link
     * PostgresOptions#poolSize()}, match it to the data source's pool) and the page size. Its timeouts are the data
     * source's business here.
     */
    public PostgresEventStore(DataSource dataSource, EventSerializer serializer, PostgresOptions options) {
        this(Jdbc.over(dataSource, options.poolSize()), true, serializer, options);
    }

    private PostgresEventStore(Jdbc jdbc, boolean ownsJdbc, EventSerializer serializer, PostgresOptions options) {
        this.jdbc = jdbc;
        this.ownsJdbc = ownsJdbc;
        this.codec = new StreamCodec(Objects.requireNonNull(serializer, "serializer"));
        this.options = options;
        this.appends = new GroupCommit<>(
                "The event store's appends on " + jdbc.server(),
                jdbc.scheduler(),
                options.poolSize(),
                options.appendBatchSize(),
                options.appendBatchWait().toNanos(),
                this::write,
                () -> new IllegalStateException("The event store on " + jdbc.server() + " is closed"));
        this.lookups = new GroupCommit<>(
                "The event store's request-id lookups on " + jdbc.server(),
                jdbc.scheduler(),
                options.poolSize(),
                options.appendBatchSize(),
                0,
                this::lookUp,
                () -> new IllegalStateException("The event store on " + jdbc.server() + " is closed"));
    }

    /**
     * Opens a HikariCP pool of {@link PostgresOptions#DEFAULT} to {@code jdbcUrl} and checks one connection. Close the
     * store to close the pool. Call {@link #migrate()} before the first append if the schema may be missing.
     *
     * @throws IllegalArgumentException if the URL is not a PostgreSQL JDBC URL
     * @throws PostgresUnavailableException if the server cannot be reached; the message names host and port
     * @throws PostgresStoreException if the server refuses the login or the database
     */
    public static PostgresEventStore connect(String jdbcUrl, String user, @Nullable String password) {
        return connect(jdbcUrl, user, password, PostgresOptions.DEFAULT);
    }

    /** As {@link #connect(String, String, String)}, with pool size, timeouts, page size and application name. */
    public static PostgresEventStore connect(
            String jdbcUrl, String user, @Nullable String password, PostgresOptions options) {
        return connect(jdbcUrl, user, password, options, new JacksonEventSerializer());
    }

    /** As {@link #connect(String, String, String, PostgresOptions)}, with another payload serializer. */
    public static PostgresEventStore connect(
            String jdbcUrl,
            String user,
            @Nullable String password,
            PostgresOptions options,
            EventSerializer serializer) {
        Objects.requireNonNull(serializer, "serializer");
        return new PostgresEventStore(Jdbc.connect(jdbcUrl, user, password, options), true, serializer, options);
    }

    /**
     * Brings the schema to the latest version (see {@link Migrations}). Blocking: call it at start, not from a lane.
     *
     * @return the schema version now in the database
     */
    public int migrate() {
        return Migrations.apply(jdbc);
    }

    /**
     * A deadline store over the same pool and scheduler, with the same serializer for the deadlines' commands (table
     * {@code lanes_deadlines}); closing this store closes both.
     */
    public PostgresDeadlineStore deadlineStore() {
        return new PostgresDeadlineStore(jdbc, codec.serializer());
    }

    /** A snapshot store over the same pool and scheduler, with the same serializer; closing this store closes both. */
    public PostgresSnapshotStore snapshotStore() {
        return new PostgresSnapshotStore(jdbc, false, codec.serializer());
    }

    /**
     * A checkpoint store for tracking processors over the same pool and scheduler (table {@code
     * lanes_tracking_checkpoints}); closing this store closes both.
     */
    public PostgresCheckpointStore checkpointStore() {
        return new PostgresCheckpointStore(jdbc);
    }

    /** What the store runs with: its threads (one per connection), page size and group commit. */
    public PostgresOptions options() {
        return options;
    }

    /** The data source the store uses (its own pool after {@code connect}). */
    public DataSource dataSource() {
        return jdbc.dataSource();
    }

    /** The bounded scheduler every JDBC call of this store runs on. */
    public Scheduler scheduler() {
        return jdbc.scheduler();
    }

    /** {@code host:port/database}, as used in error messages. */
    public String server() {
        return jdbc.server();
    }

    /** Stops the store's scheduler and, if {@code connect} opened it, the pool. Idempotent. */
    @Override
    public void close() {
        appends.close();
        lookups.close();
        if (ownsJdbc) {
            jdbc.close();
        }
    }

    @Override
    public Mono<Void> append(DomainEventStream stream) {
        return Mono.defer(() -> {
            Objects.requireNonNull(stream, "stream");
            requireOpen();
            Encoded encoded =
                    new Encoded(stream, codec.encodeHeaders(stream.headers()), codec.encodeEvents(stream.events()));
            return appends.submit(encoded);
        });
    }

    /** Writes one batch of appends (group commit) on the store's scheduler and tells each caller its own outcome. */
    private void write(List<GroupCommit.Pending<Encoded, Void>> batch) {
        try (Connection connection = jdbc.dataSource().getConnection()) {
            if (batch.size() == 1) {
                appendAlone(connection, batch.get(0));
                return;
            }
            boolean[] inserted;
            try {
                inserted = insertBatch(connection, batch);
            } catch (SQLException failed) {
                rollBack(connection);
                if (Jdbc.isUnavailable(failed)) {
                    // the outcome of the commit may be unknown: every stream of the batch fails as one append would
                    for (GroupCommit.Pending<Encoded, Void> pending : batch) {
                        pending.fail(jdbc.translate(
                                "appending " + pending.item.stream() + " in a batch of " + batch.size(), failed));
                    }
                    return;
                }
                // the batch was refused as a whole and rolled back: each stream alone, so only one that fails fails
                inserted = new boolean[batch.size()];
            }
            for (int i = 0; i < batch.size(); i++) {
                if (inserted[i]) {
                    batch.get(i).succeed();
                } else {
                    // not inserted (its version or request id is taken, a gap, or its previous version committed
                    // after the batch's snapshot): alone, as one append, which says why or inserts it now
                    appendAlone(connection, batch.get(i));
                }
            }
        } catch (SQLException noConnection) {
            for (GroupCommit.Pending<Encoded, Void> pending : batch) {
                pending.fail(jdbc.translate("appending " + pending.item.stream(), noConnection));
            }
        }
    }

    private void appendAlone(Connection connection, GroupCommit.Pending<Encoded, Void> pending) {
        try {
            insert(connection, pending.item);
            pending.succeed();
        } catch (SQLException failed) {
            pending.fail(jdbc.translate("appending " + pending.item.stream(), failed));
        } catch (RuntimeException refused) {
            pending.fail(refused);
        }
    }

    private static void rollBack(Connection connection) {
        try {
            if (!connection.getAutoCommit()) {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        } catch (SQLException ignored) {
            // a broken connection: the pool drops it, the server rolls the transaction back
        }
    }

    /**
     * One transaction of one statement, then its commit: a multi-row {@code INSERT ... ON CONFLICT DO NOTHING} stores
     * every stream whose version follows a stored one (or is 1) and whose version and request id are free, at the
     * transaction's scaled id plus its place in the batch. Returns which were inserted, by the place each inserted
     * stream's position names (one pass, whatever the batch's size).
     */
    private static boolean[] insertBatch(Connection connection, List<GroupCommit.Pending<Encoded, Void>> batch)
            throws SQLException {
        int size = batch.size();
        String[] tenants = new String[size];
        String[] contexts = new String[size];
        String[] names = new String[size];
        String[] ids = new String[size];
        Integer[] versions = new Integer[size];
        String[] streamIds = new String[size];
        String[] requestIds = new String[size];
        String[] commandIds = new String[size];
        String[] createdAt = new String[size];
        String[] headers = new String[size];
        String[] events = new String[size];
        for (int i = 0; i < size; i++) {
            Encoded encoded = batch.get(i).item;
            DomainEventStream stream = encoded.stream();
            AggregateId id = stream.aggregateId();
            tenants[i] = id.tenantId();
            contexts[i] = id.contextName();
            names[i] = id.aggregateName();
            ids[i] = id.id();
            versions[i] = stream.version();
            streamIds[i] = stream.id();
            requestIds[i] = stream.requestId();
            commandIds[i] = stream.commandId();
            createdAt[i] = OffsetDateTime.ofInstant(stream.createdAt().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC)
                    .toString();
            headers[i] = encoded.headers();
            events[i] = encoded.events();
        }
        boolean[] inserted = new boolean[size];
        connection.setAutoCommit(false);
        try (PreparedStatement insert = connection.prepareStatement(BATCH_INSERT)) {
            int i = 1;
            for (String[] column : List.of(tenants, contexts, names, ids)) {
                insert.setArray(i++, connection.createArrayOf("text", column));
            }
            insert.setArray(i++, connection.createArrayOf("int4", versions));
            for (String[] column : List.of(streamIds, requestIds, commandIds, createdAt, headers, events)) {
                insert.setArray(i++, connection.createArrayOf("text", column));
            }
            try (ResultSet rows = insert.executeQuery()) {
                while (rows.next()) {
                    // a stored stream's place in the batch (1 to its size) is its position's remainder
                    inserted[(int) (rows.getLong(1) % POSITIONS_PER_TRANSACTION) - 1] = true;
                }
            }
        }
        connection.commit();
        connection.setAutoCommit(true);
        return inserted;
    }

    /** A stream with its JSON columns, encoded on the subscriber's thread before a connection is taken. */
    private record Encoded(DomainEventStream stream, String headers, String events) {
        /** The stream it encodes (its JSON would flood an error message). */
        @Override
        public String toString() {
            return stream.toString();
        }
    }

    private Boolean insert(Connection connection, Encoded encoded) throws SQLException {
        DomainEventStream stream = encoded.stream();
        AggregateId id = stream.aggregateId();
        for (int attempt = 1; ; attempt++) {
            int inserted;
            try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
                int i = bindKey(insert, 1, id);
                insert.setInt(i++, stream.version());
                insert.setString(i++, stream.id());
                insert.setString(i++, stream.requestId());
                insert.setString(i++, stream.commandId());
                insert.setObject(
                        i++,
                        OffsetDateTime.ofInstant(stream.createdAt().truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC));
                insert.setString(i++, encoded.headers());
                insert.setString(i++, encoded.events());
                bindChecks(insert, i, id, stream.version(), stream.requestId());
                inserted = insert.executeUpdate();
            } catch (SQLException failed) {
                if (UNIQUE_VIOLATION.equals(failed.getSQLState())) {
                    throw rejected(connection, stream, failed);
                }
                throw failed;
            }
            if (inserted == 1) {
                return Boolean.TRUE;
            }
            int stored = storedVersion(connection, id);
            if (stored >= stream.version()) {
                throw taken(stream, stored);
            }
            if (refused(connection, stream)) {
                throw DuplicateRequestIdException.refusedEarlier(id, stream.requestId());
            }
            if (stored < stream.version() - 1 || attempt == 3) {
                throw new IllegalArgumentException("Appending version " + stream.version() + " to " + id
                        + " would leave a gap: the stored version is " + stored);
            }
            // the previous version was committed after this statement began: insert again
        }
    }

    /** Binds the version and refusal checks of {@link #INSERT}, its last parameters from {@code index}. */
    static void bindChecks(PreparedStatement insert, int index, AggregateId id, int version, String requestId)
            throws SQLException {
        insert.setInt(index, version);
        int i = bindKey(insert, index + 1, id);
        insert.setInt(i++, version);
        i = bindKey(insert, i, id);
        insert.setString(i, requestId);
    }

    /** Whether the aggregate refused a command of the stream's request id (its append was not stored for that). */
    private static boolean refused(Connection connection, DomainEventStream stream) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(REFUSED)) {
            int i = bindKey(query, 1, stream.aggregateId());
            query.setString(i, stream.requestId());
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getBoolean(1);
            }
        }
    }

    private RuntimeException rejected(Connection connection, DomainEventStream stream, SQLException failed)
            throws SQLException {
        String constraint = constraintOf(failed);
        if (REQUEST_CONSTRAINT.equals(constraint)) {
            return DuplicateRequestIdException.of(stream.aggregateId(), stream.requestId());
        }
        if (VERSION_CONSTRAINT.equals(constraint)) {
            if (stream.version() == 1) {
                return DuplicateAggregateIdException.of(stream.aggregateId());
            }
            int stored;
            try {
                stored = storedVersion(connection, stream.aggregateId());
            } catch (SQLException unknown) {
                stored = -1;
            }
            return EventVersionConflictException.taken(
                    stream.aggregateId(), stream.version(), stored >= stream.version() ? stored : -1);
        }
        throw failed;
    }

    private static RuntimeException taken(DomainEventStream stream, int stored) {
        return stream.version() == 1
                ? DuplicateAggregateIdException.of(stream.aggregateId())
                : EventVersionConflictException.taken(stream.aggregateId(), stream.version(), stored);
    }

    private static @Nullable String constraintOf(SQLException failed) {
        if (failed instanceof PSQLException psql) {
            ServerErrorMessage server = psql.getServerErrorMessage();
            if (server != null && server.getConstraint() != null) {
                return server.getConstraint();
            }
        }
        String message = String.valueOf(failed.getMessage());
        if (message.contains(REQUEST_CONSTRAINT)) {
            return REQUEST_CONSTRAINT;
        }
        return message.contains(VERSION_CONSTRAINT) ? VERSION_CONSTRAINT : null;
    }

    private static int storedVersion(Connection connection, AggregateId id) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(STORED_VERSION)) {
            bindKey(query, 1, id);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    @Override
    public Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion, int toVersion) {
        return Flux.defer(() -> {
            Objects.requireNonNull(aggregateId, "aggregateId");
            if (fromVersion < 1) {
                throw new IllegalArgumentException("fromVersion must be positive: " + fromVersion);
            }
            if (toVersion < fromVersion) {
                throw new IllegalArgumentException(
                        "toVersion must not be below fromVersion: " + toVersion + " < " + fromVersion);
            }
            requireOpen();
            return page(aggregateId, fromVersion, toVersion);
        });
    }

    /** One page from {@code from}; the next page is read only when this one is consumed and more is requested. */
    private Flux<DomainEventStream> page(AggregateId id, int from, int to) {
        return jdbc.call("loading " + id + " v" + from + ".." + to, connection -> select(connection, id, from, to))
                .flatMapMany(rows -> {
                    Flux<DomainEventStream> streams = Flux.fromIterable(rows).map(row -> decode(id, row));
                    if (rows.size() < options.pageSize()) {
                        return streams;
                    }
                    int last = rows.get(rows.size() - 1).version();
                    return last >= to ? streams : streams.concatWith(Flux.defer(() -> page(id, last + 1, to)));
                });
    }

    /** A stored stream before its JSON is parsed. */
    private record Row(
            int version,
            String streamId,
            String requestId,
            String commandId,
            Instant createdAt,
            String headers,
            String events) {}

    private List<Row> select(Connection connection, AggregateId id, int from, int to) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(PAGE)) {
            int i = bindKey(query, 1, id);
            query.setInt(i++, from);
            query.setInt(i++, to);
            query.setInt(i, options.pageSize());
            return rows(query);
        }
    }

    /** Runs a query whose columns are those of {@link Row}, in that order. */
    private static List<Row> rows(PreparedStatement query) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (ResultSet result = query.executeQuery()) {
            while (result.next()) {
                rows.add(row(result));
            }
        }
        return rows;
    }

    /** The columns of {@link Row}, first in the result, in that order. */
    private static Row row(ResultSet result) throws SQLException {
        return new Row(
                result.getInt(1),
                result.getString(2),
                result.getString(3),
                result.getString(4),
                result.getObject(5, OffsetDateTime.class).toInstant(),
                result.getString(6),
                result.getString(7));
    }

    private DomainEventStream decode(AggregateId id, Row row) {
        return new DomainEventStream(
                row.streamId(),
                id,
                row.version(),
                row.requestId(),
                row.commandId(),
                codec.decodeEvents(row.events()),
                row.createdAt(),
                codec.decodeHeaders(row.headers()));
    }

    /**
     * One page of the global order, read in one statement; it may be shorter than {@code limit}, or empty, while an
     * append that got its transaction id earlier is still in flight (see the class documentation).
     */
    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit) {
        return Flux.defer(() -> {
                    if (fromPosition < 0) {
                        throw new IllegalArgumentException("fromPosition must not be negative: " + fromPosition);
                    }
                    if (limit < 1) {
                        throw new IllegalArgumentException("limit must be positive: " + limit);
                    }
                    requireOpen();
                    return jdbc.call(
                            "reading all streams from position " + fromPosition,
                            connection -> settledPage(connection, fromPosition, limit, Set.of(), Segment.ALL));
                })
                .flatMapIterable(rows -> rows)
                .map(row -> new PositionedStream(row.position(), decode(row.aggregateId(), row.stream())));
    }

    /** Of these types only, filtered in the query: a stream of another type is never decoded. */
    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit, Set<MaterializedNamedAggregate> types) {
        return readAll(fromPosition, limit, types, Segment.ALL);
    }

    /**
     * Of these types and this segment only, both filtered in the query: the segment by the hash column stored with
     * every stream ({@code segment_hash}, schema version 10), so another segment's stream is neither sent nor decoded.
     * The query walks the position index and filters, so each of {@code n} segment readers passes over the rows of
     * the others inside the database (see docs/benchmarks.md for what that costs).
     */
    @Override
    public Flux<PositionedStream> readAll(
            long fromPosition, int limit, Set<MaterializedNamedAggregate> types, Segment segment) {
        return Flux.defer(() -> {
                    if (fromPosition < 0) {
                        throw new IllegalArgumentException("fromPosition must not be negative: " + fromPosition);
                    }
                    if (limit < 1) {
                        throw new IllegalArgumentException("limit must be positive: " + limit);
                    }
                    if (types.isEmpty()) {
                        throw new IllegalArgumentException("types must not be empty");
                    }
                    requireOpen();
                    Set<MaterializedNamedAggregate> wanted = Set.copyOf(types);
                    return jdbc.call(
                            "reading the streams of " + wanted + " in " + segment + " from position " + fromPosition,
                            connection -> settledPage(connection, fromPosition, limit, wanted, segment));
                })
                .flatMapIterable(rows -> rows)
                .map(row -> new PositionedStream(row.position(), decode(row.aggregateId(), row.stream())));
    }

    /** Counted in one query, over the position index from the checkpoint on. */
    @Override
    public Mono<SegmentLag> lag(Segment segment, long checkpoint) {
        return Mono.defer(() -> {
            requireOpen();
            return jdbc.call("reading the lag of " + segment + " after position " + checkpoint, connection -> {
                try (PreparedStatement query = connection.prepareStatement(LAG)) {
                    query.setInt(1, segment.count() - 1);
                    query.setInt(2, segment.index());
                    query.setLong(3, checkpoint);
                    query.setInt(4, segment.count() - 1);
                    query.setInt(5, segment.index());
                    try (ResultSet result = query.executeQuery()) {
                        result.next();
                        OffsetDateTime oldest = result.getObject(3, OffsetDateTime.class);
                        return new SegmentLag(
                                Math.max(checkpoint, result.getLong(1)),
                                result.getLong(2),
                                oldest == null ? null : oldest.toInstant());
                    }
                }
            });
        });
    }

    /**
     * The position of the last stream of these types stored when the call runs, or 0 when there is none: how far a
     * tracking processor reading these types must get to have seen every stream stored before the call (the Spring Boot
     * starter's health waits for its tracking processors to get there). Of every type when {@code types} is empty.
     */
    public Mono<Long> lastPosition(Set<MaterializedNamedAggregate> types) {
        return Mono.defer(() -> {
            requireOpen();
            Set<MaterializedNamedAggregate> wanted = Set.copyOf(types);
            return jdbc.call(
                    "reading the last position of " + (wanted.isEmpty() ? "all types" : wanted), connection -> {
                        String sql = "SELECT coalesce(max(position), 0) FROM lanes_event_streams"
                                + (wanted.isEmpty()
                                        ? ""
                                        : " WHERE (context_name, aggregate_name) IN (SELECT * FROM unnest(?::text[], ?::text[]))");
                        try (PreparedStatement query = connection.prepareStatement(sql)) {
                            if (!wanted.isEmpty()) {
                                bindTypes(connection, query, 1, wanted);
                            }
                            try (ResultSet result = query.executeQuery()) {
                                result.next();
                                return result.getLong(1);
                            }
                        }
                    });
        });
    }

    /**
     * Binds {@code types} as two parallel text arrays (context names, then aggregate names, in one order) from
     * parameter {@code first}, for {@code (context_name, aggregate_name) IN (SELECT * FROM unnest(?::text[],
     * ?::text[]))}; returns the next parameter's index.
     */
    private static int bindTypes(
            Connection connection, PreparedStatement query, int first, Set<MaterializedNamedAggregate> types)
            throws SQLException {
        List<MaterializedNamedAggregate> ordered = List.copyOf(types);
        query.setArray(
                first,
                connection.createArrayOf(
                        "text",
                        ordered.stream()
                                .map(MaterializedNamedAggregate::contextName)
                                .toArray()));
        query.setArray(
                first + 1,
                connection.createArrayOf(
                        "text",
                        ordered.stream()
                                .map(MaterializedNamedAggregate::aggregateName)
                                .toArray()));
        return first + 2;
    }

    /** A row of the global order before its JSON is parsed. */
    private record PositionedRow(long position, AggregateId aggregateId, Row stream) {}

    /** One page, of {@code types} only unless empty. */
    private static List<PositionedRow> settledPage(
            Connection connection, long from, int limit, Set<MaterializedNamedAggregate> types, Segment segment)
            throws SQLException {
        List<PositionedRow> page = new ArrayList<>();
        boolean segmented = segment.count() > 1;
        String sql = types.isEmpty() ? READ_ALL : segmented ? READ_SEGMENT_OF_TYPES : READ_ALL_OF_TYPES;
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            query.setLong(1, from);
            if (types.isEmpty()) {
                query.setInt(2, limit);
            } else {
                int next = bindTypes(connection, query, 2, types);
                if (segmented) {
                    query.setInt(next++, segment.count() - 1);
                    query.setInt(next++, segment.index());
                }
                query.setInt(next, limit);
            }
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    AggregateId id = AggregateId.of(
                            NamedAggregate.of(result.getString(10), result.getString(11)),
                            result.getString(12),
                            result.getString(9));
                    page.add(new PositionedRow(result.getLong(8), id, row(result)));
                }
            }
        }
        return page;
    }

    @Override
    public Mono<Boolean> hasRequestId(AggregateId aggregateId, String requestId) {
        return Mono.defer(() -> {
            checkRequest(aggregateId, requestId);
            return jdbc.call("checking request " + requestId + " on " + aggregateId, connection -> {
                try (PreparedStatement query = connection.prepareStatement(HAS_REQUEST_ID)) {
                    query.setString(1, requestId);
                    bindKey(query, 2, aggregateId);
                    try (ResultSet rows = query.executeQuery()) {
                        rows.next();
                        return rows.getBoolean(1);
                    }
                }
            });
        });
    }

    /** {@link #findRequest}'s stream: one round trip that also reads the refusal table. */
    @Override
    public Mono<DomainEventStream> findByRequestId(AggregateId aggregateId, String requestId) {
        return findRequest(aggregateId, requestId).mapNotNull(RequestOutcome::stream);
    }

    /**
     * One indexed read of both the stream and the refusal of the request id; a committed append is visible to it
     * whichever connection made it. Lookups that arrive while every connection of the store is busy are gathered, as
     * appends are, and read together in one statement: at most {@link PostgresOptions#appendBatchSize()} per round
     * trip.
     */
    @Override
    public Mono<RequestOutcome> findRequest(AggregateId aggregateId, String requestId) {
        return Mono.defer(() -> {
                    checkRequest(aggregateId, requestId);
                    return lookups.submit(new Lookup(aggregateId, requestId));
                })
                .map(found -> found.outcome(aggregateId, this));
    }

    /** Stored first; a refusal of a request id that stored a stream changes nothing (the stream wins). */
    @Override
    public Mono<Void> recordRefusal(CommandRefusal refusal) {
        return Mono.defer(() -> {
            Objects.requireNonNull(refusal, "refusal");
            requireOpen();
            return jdbc.call(
                            "storing the refusal of request " + refusal.requestId() + " on " + refusal.aggregateId(),
                            connection -> {
                                try (PreparedStatement insert = connection.prepareStatement(INSERT_REFUSAL)) {
                                    int i = bindKey(insert, 1, refusal.aggregateId());
                                    insert.setString(i++, refusal.requestId());
                                    insert.setString(i++, refusal.commandId());
                                    insert.setString(i++, refusal.errorType());
                                    insert.setString(i++, refusal.reason());
                                    insert.setString(i++, refusal.commandHash());
                                    insert.setObject(i, refusal.refusedAt().atOffset(ZoneOffset.UTC));
                                    return insert.executeUpdate();
                                }
                            })
                    .then();
        });
    }

    /** A request id to look up on an aggregate. */
    private record Lookup(AggregateId aggregateId, String requestId) {}

    /** What a lookup found: the request id's stream, or else its refusal. */
    private record Found(@Nullable Row stream, @Nullable CommandRefusal refusal) {
        RequestOutcome outcome(AggregateId id, PostgresEventStore store) {
            return stream != null
                    ? RequestOutcome.stored(store.decode(id, stream))
                    : RequestOutcome.refused(Objects.requireNonNull(refusal));
        }

        /** This and the {@code result}'s current row: a stream wins over a refusal. */
        static Found merged(@Nullable Found found, AggregateId id, ResultSet result) throws SQLException {
            if (result.getString(9) == null) {
                return new Found(row(result), null);
            }
            if (found != null && found.stream != null) {
                return found;
            }
            return new Found(
                    null,
                    new CommandRefusal(
                            id,
                            result.getString(3),
                            result.getString(4),
                            result.getString(9),
                            result.getString(10),
                            result.getString(11),
                            result.getObject(5, OffsetDateTime.class).toInstant()));
        }
    }

    /** Reads one batch of lookups on the store's scheduler; each caller gets its own outcome, or none. */
    private void lookUp(List<GroupCommit.Pending<Lookup, Found>> batch) {
        try (Connection connection = jdbc.dataSource().getConnection()) {
            if (batch.size() > 1) {
                try {
                    @Nullable Found[] found = lookUpAll(connection, batch);
                    for (int i = 0; i < batch.size(); i++) {
                        answer(batch.get(i), found[i]);
                    }
                    return;
                } catch (SQLException failed) {
                    if (Jdbc.isUnavailable(failed)) {
                        throw failed;
                    }
                    // refused as a whole (a request id the server cannot take): each alone, so only that one fails
                }
            }
            for (GroupCommit.Pending<Lookup, Found> pending : batch) {
                lookUpAlone(connection, pending);
            }
        } catch (SQLException failed) {
            for (GroupCommit.Pending<Lookup, Found> pending : batch) {
                pending.fail(jdbc.translate(finding(pending.item), failed));
            }
        }
    }

    private static void answer(GroupCommit.Pending<Lookup, Found> pending, @Nullable Found found) {
        if (found == null) {
            pending.succeed();
        } else {
            pending.succeed(found);
        }
    }

    private static String finding(Lookup lookup) {
        return "finding request " + lookup.requestId() + " on " + lookup.aggregateId();
    }

    private void lookUpAlone(Connection connection, GroupCommit.Pending<Lookup, Found> pending) {
        try (PreparedStatement query = connection.prepareStatement(BY_REQUEST_ID)) {
            bindKey(query, 1, pending.item.aggregateId());
            query.setString(5, pending.item.requestId());
            Found found = null;
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    found = Found.merged(found, pending.item.aggregateId(), result);
                }
            }
            answer(pending, found);
        } catch (SQLException failed) {
            pending.fail(jdbc.translate(finding(pending.item), failed));
        }
    }

    private static @Nullable Found[] lookUpAll(Connection connection, List<GroupCommit.Pending<Lookup, Found>> batch)
            throws SQLException {
        int size = batch.size();
        String[][] columns = new String[5][size];
        for (int i = 0; i < size; i++) {
            Lookup lookup = batch.get(i).item;
            columns[0][i] = lookup.aggregateId().tenantId();
            columns[1][i] = lookup.aggregateId().contextName();
            columns[2][i] = lookup.aggregateId().aggregateName();
            columns[3][i] = lookup.aggregateId().id();
            columns[4][i] = lookup.requestId();
        }
        @Nullable Found[] found = new Found[size];
        try (PreparedStatement query = connection.prepareStatement(BY_REQUEST_IDS)) {
            for (int c = 0; c < columns.length; c++) {
                query.setArray(c + 1, connection.createArrayOf("text", columns[c]));
            }
            try (ResultSet result = query.executeQuery()) {
                while (result.next()) {
                    int n = result.getInt(8) - 1;
                    found[n] = Found.merged(found[n], batch.get(n).item.aggregateId(), result);
                }
            }
        }
        return found;
    }

    private void checkRequest(AggregateId aggregateId, String requestId) {
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(requestId, "requestId");
        if (requestId.isBlank()) {
            throw new IllegalArgumentException("requestId must not be blank: '" + requestId + "'");
        }
        requireOpen();
    }

    private void requireOpen() {
        if (jdbc.isClosed()) {
            throw new IllegalStateException("The event store on " + jdbc.server() + " is closed");
        }
    }

    /** Binds tenant, context, aggregate name and id from {@code index}; returns the next index. */
    static int bindKey(PreparedStatement statement, int index, AggregateId id) throws SQLException {
        statement.setString(index, id.tenantId());
        statement.setString(index + 1, id.contextName());
        statement.setString(index + 2, id.aggregateName());
        statement.setString(index + 3, id.id());
        return index + 4;
    }

    @Override
    public String toString() {
        return "PostgresEventStore[" + jdbc.server() + "]";
    }
}
