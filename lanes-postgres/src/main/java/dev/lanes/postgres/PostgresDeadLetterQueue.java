package dev.lanes.postgres;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.event.OwnershipFence;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import dev.lanes.processing.saga.ParkedReply;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * A {@link DeadLetterQueue} in PostgreSQL: one row per parked stream in {@code lanes_dead_letters} (schema version 4 of
 * {@link Migrations}; the ownership epochs of version 5, below; a saga's parked replies in the columns of version 6), keyed by processor, aggregate and sequence index; the stream's events and headers stored as in
 * {@code lanes_event_streams}, through the same {@link EventSerializer}, with the reason and the attempts.
 *
 * <p><b>Parked check.</b> {@link #isParked} answers from a set of parked sequences in memory: loaded when the queue is
 * opened, kept by this queue's own writes, and added to by {@link #reload}, which the event side runs whenever its bus
 * moves partitions to this instance, before it hands out any of their records. A sequence another process removed (a
 * skip from the CLI, a retry another instance ran) is found gone at the next stream of that aggregate, which is then
 * handled.
 *
 * <p><b>Rebalances.</b> With the Kafka event bus, a partition revoked from one instance is assigned to the next only
 * after the first drained it and committed, and a stream is acknowledged only once this queue stored it; the new owner
 * reloads at assignment, so it parks the later streams of every aggregate whose sequence the previous owner parked. A
 * reload that fails (the database unreachable at that moment) holds the assigned partitions: the Kafka bus runs it
 * again until it passes, and hands out their records only then.
 *
 * <p><b>Ownership fence.</b> A partition can also move while a parking for one of its streams is still under way: it
 * was <em>lost</em> (its owner crashed, or was dropped from the group after missing its heartbeats or polls), or the
 * revoke timeout of {@code KafkaOptions} ran out. So before it reloads, each assignment takes a new epoch of the
 * partition for its consumer group ({@link #claim}, table {@code lanes_partition_owners} of schema version 5); the
 * streams of that assignment carry it ({@link OwnershipFence}), and the fenced {@code enqueue} and {@code
 * enqueueIfPresent} store a stream only while that epoch is still the partition's, read under a {@code FOR SHARE} lock
 * of the partition's row in the insert's transaction. The guarantee, for every parking that carries an epoch: either it
 * is committed before the next claim of its partition commits, and the new owner's reload, which follows its claim,
 * sees it; or it fails with {@link OwnershipLostException}, naming the processor, the partition and both epochs, and
 * stores nothing. The event side then hands the stream back unacknowledged, so the old owner never settles it, and the
 * new owner reads it again from the committed offset (Kafka refuses the offset commits of a member it dropped from
 * the group). Not fenced: what the old owner's processor handles, without parking, until Kafka tells it that it lost
 * the partition (a redelivery to the new owner, as after any rebalance); retries and skips, which any instance may
 * run (below); and parkings without an epoch ({@link OwnershipFence#NONE}: a bus that does not claim its assignments,
 * such as the same processor running outside the consumer group over the same table, whose sequences are not seen
 * until the next reload). Only the owner of an aggregate's partition creates its sequences (the CLI and retries only
 * remove letters). With a bus that does not implement {@code DomainEventBus.onAssignment} none of this holds: one
 * processor's aggregate must then be handled by one instance at a time and stay there, or the instances be restarted
 * after it moved.
 *
 * <p><b>Retries across instances.</b> A retry runs on the instance that took its request, which need not own the
 * aggregate's partition; the owner may park new streams behind the head meanwhile. {@link #enqueueIfPresent} locks the
 * letter it parks behind ({@code FOR KEY SHARE}) until its row is committed, so the retry's eviction of that letter
 * waits for the row, and the retry's next look at the sequence delivers it.
 *
 * <p><b>Threads.</b> Every JDBC call runs on the queue's bounded scheduler (one thread per pooled connection), never
 * on the subscriber's thread; opening is blocking (it loads the parked set): do it at start, not from a lane.
 *
 * <p><b>Failures.</b> As for {@link PostgresEventStore}: {@link PostgresUnavailableException} when the server cannot
 * be reached, {@link PostgresStoreException} for other SQL errors, {@link EventSerializationException} for a payload
 * that cannot be stored or read.
 */
public final class PostgresDeadLetterQueue implements DeadLetterQueue, AutoCloseable {
    private static final String KEY =
            "processor = ? AND tenant_id = ? AND context_name = ? AND aggregate_name = ? AND aggregate_id = ?";
    private static final String COLUMNS = "processor, tenant_id, context_name, aggregate_name, aggregate_id";
    private static final String NEXT_INDEX =
            "coalesce((SELECT max(sequence_index) FROM lanes_dead_letters WHERE " + KEY + "), 0) + 1";
    private static final String INSERT = "INSERT INTO lanes_dead_letters (" + COLUMNS + ", sequence_index, version,"
            + " stream_id, request_id, command_id, created_at, headers, events, reason, attempts, parked_at,"
            + " reply_event_sequence, reply_tenant_id, reply_context_name, reply_aggregate_name, reply_aggregate_id,"
            + " reply_request_id, reply_command)"
            + " SELECT ?, ?, ?, ?, ?, " + NEXT_INDEX + ", ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb), ?, ?, ?,"
            + " ?, ?, ?, ?, ?, ?, CAST(? AS jsonb)";
    /** A command's letter (schema version 7): no stream, the command in its own column. */
    private static final String INSERT_COMMAND = "INSERT INTO lanes_dead_letters (" + COLUMNS + ", sequence_index,"
            + " request_id, command_id, created_at, headers, reason, attempts, parked_at, command)"
            + " SELECT ?, ?, ?, ?, ?, " + NEXT_INDEX + ", ?, ?, ?, CAST(? AS jsonb), ?, ?, ?, CAST(? AS jsonb)";
    /**
     * Parks behind a sequence only while it has a letter, and locks the letter it finds until the new row is committed:
     * a retry evicting that letter (on any instance) waits for the row, so its next look at the sequence sees it. A
     * letter evicted first is skipped by the lock (READ COMMITTED re-checks it), and with no letter left nothing is
     * inserted: the caller handles the stream itself.
     */
    private static final String IF_PRESENT =
            " WHERE EXISTS (SELECT 1 FROM lanes_dead_letters WHERE " + KEY + " FOR KEY SHARE) RETURNING sequence_index";

    private static final String LETTER_COLUMNS = "sequence_index, version, stream_id, request_id, command_id,"
            + " created_at, headers::text, events::text, reason, attempts, parked_at, reply_event_sequence,"
            + " reply_tenant_id, reply_context_name, reply_aggregate_name, reply_aggregate_id, reply_request_id,"
            + " reply_command::text, command::text";
    private static final String LIST =
            "SELECT " + LETTER_COLUMNS + " FROM lanes_dead_letters WHERE " + KEY + " ORDER BY sequence_index";
    private static final String SEQUENCES =
            "SELECT " + COLUMNS + ", count(*) FROM lanes_dead_letters GROUP BY " + COLUMNS + " ORDER BY " + COLUMNS;
    private static final String PARKED = "SELECT DISTINCT " + COLUMNS + " FROM lanes_dead_letters";
    private static final String EVICT = "DELETE FROM lanes_dead_letters WHERE " + KEY + " AND sequence_index = ?";
    private static final String EXISTS = "SELECT EXISTS (SELECT 1 FROM lanes_dead_letters WHERE " + KEY + ")";
    private static final String UPDATE = "UPDATE lanes_dead_letters SET reason = ?, attempts = ?, parked_at = ?"
            + " WHERE " + KEY + " AND sequence_index = ?";
    private static final String REQUEST_RETRY =
            "INSERT INTO lanes_dead_letter_retries (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING";
    private static final String TAKE_RETRIES = "WITH taken AS (DELETE FROM lanes_dead_letter_retries"
            + " WHERE processor = ANY (?) RETURNING "
            + COLUMNS + ") SELECT " + COLUMNS + ", count(*) FROM taken JOIN lanes_dead_letters USING (" + COLUMNS
            + ") GROUP BY " + COLUMNS + " ORDER BY " + COLUMNS;

    /** As {@link #TAKE_RETRIES}, for the aggregates of some segments of one count (the hash of V10's segment_hash). */
    private static final String TAKE_SEGMENT_RETRIES = "WITH taken AS (DELETE FROM lanes_dead_letter_retries"
            + " WHERE processor = ANY (?) AND (('x' || substr(md5(aggregate_id), 1, 8))::bit(32)::int & ?) = ANY (?)"
            + " RETURNING " + COLUMNS + ") SELECT " + COLUMNS + ", count(*) FROM taken JOIN lanes_dead_letters USING ("
            + COLUMNS + ") GROUP BY " + COLUMNS + " ORDER BY " + COLUMNS;

    private static final String DISCARD = "DELETE FROM lanes_dead_letters WHERE processor = ?";

    /**
     * Takes the next epoch of a partition: one statement, so two instances assigned the same partition one after the
     * other get two epochs, the later one higher (the conflicting row is locked by the update).
     */
    private static final String CLAIM = "INSERT INTO lanes_partition_owners"
            + " (consumer_group, topic, partition_index, epoch, owner, claimed_at) VALUES (?, ?, ?, 1, ?, ?)"
            + " ON CONFLICT (consumer_group, topic, partition_index) DO UPDATE"
            + " SET epoch = lanes_partition_owners.epoch + 1, owner = EXCLUDED.owner, claimed_at = EXCLUDED.claimed_at"
            + " RETURNING epoch";
    /**
     * The fence of a parking, the first statement of its transaction; the insert follows in the same transaction only
     * if the epoch read is the one the parking carries, and the commit ends both. Why an instance that lost the
     * partition then stores nothing that the new owner's reload misses, under READ COMMITTED: the new owner's {@link
     * #CLAIM} updates this row (a row lock that conflicts with {@code FOR SHARE}), commits, and only then does the new
     * owner reload the parked sequences, in a later statement with a later snapshot. Either the parking's {@code FOR
     * SHARE} lock comes first: the claim's update waits for it until the parking's transaction ended, so a row it
     * inserted is committed before the claim, and the reload sees it. Or the claim's update comes first: the lock
     * waits until the claim's transaction ended; READ COMMITTED then does not answer from the statement's snapshot but
     * locks and returns the row's newest committed version (the update chain is followed), whose epoch is the claim's,
     * so the parking fails and inserts nothing; a claim that rolled back leaves the old epoch, and the parking goes
     * on. A claim committed before the lock was asked for is in the statement's snapshot anyway. A plain read without
     * the lock would be answered from the snapshot, while the claim's update is uncommitted, and let the insert
     * commit after the reload.
     */
    private static final String FENCE = "SELECT epoch, owner FROM lanes_partition_owners"
            + " WHERE consumer_group = ? AND topic = ? AND partition_index = ? FOR SHARE";

    private final Jdbc jdbc;
    private final StreamCodec codec;
    private final Clock clock;
    private final Set<Sequence> parked = ConcurrentHashMap.newKeySet();

    /** One sequence's key. */
    private record Sequence(String processor, AggregateId aggregateId) {}

    private PostgresDeadLetterQueue(Jdbc jdbc, EventSerializer serializer, Clock clock) {
        this.jdbc = jdbc;
        this.codec = new StreamCodec(Objects.requireNonNull(serializer, "serializer"));
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Over a data source the caller owns and closes (the event store's {@link PostgresEventStore#dataSource()}, say),
     * with the {@link JacksonEventSerializer}; loads the parked sequences. Blocking. The schema must be migrated.
     *
     * @throws PostgresUnavailableException if the server cannot be reached
     */
    public static PostgresDeadLetterQueue open(DataSource dataSource) {
        return open(dataSource, new JacksonEventSerializer());
    }

    /** As {@link #open(DataSource)}, with the serializer the event store uses. */
    public static PostgresDeadLetterQueue open(DataSource dataSource, EventSerializer serializer) {
        return open(dataSource, serializer, Clock.systemUTC());
    }

    /** As {@link #open(DataSource, EventSerializer)}, with the clock that stamps {@link DeadLetter#parkedAt()}. */
    public static PostgresDeadLetterQueue open(DataSource dataSource, EventSerializer serializer, Clock clock) {
        return load(new PostgresDeadLetterQueue(
                Jdbc.over(Objects.requireNonNull(dataSource, "dataSource"), Jdbc.threadsFor(dataSource)),
                serializer,
                clock));
    }

    /**
     * Opens a pool of its own (closed with the queue) and loads the parked sequences, for tools such as the CLI.
     * Blocking.
     *
     * @throws IllegalArgumentException if the URL is not a PostgreSQL JDBC URL
     * @throws PostgresUnavailableException if the server cannot be reached; the message names host and port
     * @throws PostgresStoreException if the server refuses the login or the database, or the schema lacks the table
     */
    public static PostgresDeadLetterQueue connect(
            String jdbcUrl, String user, @Nullable String password, PostgresOptions options) {
        return load(new PostgresDeadLetterQueue(
                Jdbc.connect(jdbcUrl, user, password, options), new JacksonEventSerializer(), Clock.systemUTC()));
    }

    private static PostgresDeadLetterQueue load(PostgresDeadLetterQueue queue) {
        try {
            queue.parked.addAll(queue.jdbc.execute("loading the parked dead-letter sequences", queue::parkedSequences));
            return queue;
        } catch (RuntimeException e) {
            queue.close();
            throw e;
        }
    }

    /**
     * Adds the sequences parked in the table to the parked set; keeps those that are gone from it (each is found gone at
     * its aggregate's next stream). Blocking, on the calling thread: the event bus's consumer thread as it takes over
     * partitions, never a lane.
     *
     * @throws PostgresUnavailableException if the server cannot be reached
     * @throws PostgresStoreException for another SQL error
     * @throws IllegalStateException if the queue is closed
     */
    @Override
    public void reload() {
        requireOpen();
        parked.addAll(jdbc.execute("reloading the parked dead-letter sequences", this::parkedSequences));
    }

    private List<Sequence> parkedSequences(Connection connection) throws SQLException {
        List<Sequence> sequences = new ArrayList<>();
        try (PreparedStatement query = connection.prepareStatement(PARKED);
                ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                sequences.add(new Sequence(rows.getString(1), aggregateId(rows, 2)));
            }
        }
        return sequences;
    }

    @Override
    public boolean isParked(String processor, AggregateId aggregateId) {
        return !parked.isEmpty() && parked.contains(new Sequence(processor, aggregateId));
    }

    @Override
    public Mono<DeadLetter> enqueue(String processor, DomainEventStream stream, String reason, int attempts) {
        return enqueue(processor, stream, reason, attempts, OwnershipFence.NONE);
    }

    @Override
    public Mono<DeadLetter> enqueueIfPresent(String processor, DomainEventStream stream, String reason) {
        return enqueueIfPresent(processor, stream, reason, OwnershipFence.NONE);
    }

    /**
     * Parks the stream if {@code fence} is {@link OwnershipFence#NONE} or still the epoch of its partition (see {@link
     * #claim}); otherwise fails with {@link OwnershipLostException}, naming the processor, the partition and both
     * epochs, and stores nothing.
     */
    @Override
    public Mono<DeadLetter> enqueue(
            String processor, DomainEventStream stream, String reason, int attempts, OwnershipFence fence) {
        return insert(processor, stream, null, reason, attempts, false, fence);
    }

    /**
     * Parks a saga reply (schema version 6): a row whose stream columns hold the cause stream and whose {@code reply_}
     * columns what reproduces the reply, the command through the queue's {@link EventSerializer}. Not fenced: a reply
     * comes from the saga's outbox, not from a partition.
     */
    @Override
    public Mono<DeadLetter> enqueueReply(
            String processor, DomainEventStream cause, ParkedReply reply, String reason, int attempts) {
        return insert(
                processor, cause, Objects.requireNonNull(reply, "reply"), reason, attempts, false, OwnershipFence.NONE);
    }

    /** As {@link #enqueueReply}, only behind an existing head (locked as for a stream). */
    @Override
    public Mono<DeadLetter> enqueueReplyIfPresent(
            String processor, DomainEventStream cause, ParkedReply reply, String reason) {
        return insert(processor, cause, Objects.requireNonNull(reply, "reply"), reason, 0, true, OwnershipFence.NONE)
                .switchIfEmpty(Mono.fromRunnable(() -> parked.remove(new Sequence(processor, cause.aggregateId()))));
    }

    /** As {@link #enqueue(String, DomainEventStream, String, int, OwnershipFence)}, only behind an existing head. */
    @Override
    public Mono<DeadLetter> enqueueIfPresent(
            String processor, DomainEventStream stream, String reason, OwnershipFence fence) {
        return insert(processor, stream, null, reason, 0, true, fence)
                .switchIfEmpty(Mono.fromRunnable(() -> parked.remove(new Sequence(processor, stream.aggregateId()))));
    }

    /**
     * Parks a command whose retries ran out (schema version 7): a row of its aggregate's sequence with no stream, the
     * command through the queue's {@link EventSerializer}. Not fenced: commands come from the command bus, not from an
     * event partition.
     */
    @Override
    public Mono<DeadLetter> enqueueCommand(String processor, CommandMessage command, String reason, int attempts) {
        return insertCommand(processor, Objects.requireNonNull(command, "command"), reason, attempts, false);
    }

    /** As {@link #enqueueCommand}, only behind an existing head (locked as for a stream). */
    @Override
    public Mono<DeadLetter> enqueueCommandIfPresent(String processor, CommandMessage command, String reason) {
        return insertCommand(processor, Objects.requireNonNull(command, "command"), reason, 0, true)
                .switchIfEmpty(Mono.fromRunnable(() -> parked.remove(new Sequence(processor, command.aggregateId()))));
    }

    private Mono<DeadLetter> insertCommand(
            String processor, CommandMessage command, String reason, int attempts, boolean ifPresent) {
        return Mono.defer(() -> {
            requireProcessor(processor);
            requireOpen();
            String headers = codec.encodeHeaders(command.headers());
            String payload = codec.encodePayload(command.command());
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            Sequence sequence = new Sequence(processor, command.aggregateId());
            return jdbc.call(
                            "parking " + command + " for " + processor,
                            insertLetter(INSERT_COMMAND, ifPresent, sequence, (insert, first) -> {
                                int i = first;
                                insert.setString(i++, command.requestId());
                                insert.setString(i++, command.messageId());
                                insert.setObject(i++, utc(command.createdAt()));
                                insert.setString(i++, headers);
                                insert.setString(i++, reason);
                                insert.setInt(i++, attempts);
                                insert.setObject(i++, utc(now));
                                insert.setString(i++, payload);
                                return i;
                            }))
                    .flatMap(Mono::justOrEmpty)
                    .map(index -> {
                        parked.add(sequence);
                        return DeadLetter.ofCommand(processor, index, command, reason, attempts, now);
                    });
        });
    }

    /**
     * Takes the next epoch of the partition in {@code lanes_partition_owners} (schema version 5) for {@code owner}:
     * from the moment it is committed, which is before this returns, every parking fenced with an earlier epoch of the
     * partition fails, on every instance, and every such parking that was stored is committed (see {@link #FENCE}), so
     * a {@link #reload} after this sees it. Blocking, on the calling thread: the event bus's consumer thread as it is
     * assigned the partition, before it reloads.
     *
     * @throws PostgresUnavailableException if the server cannot be reached
     * @throws PostgresStoreException for another SQL error
     * @throws IllegalStateException if the queue is closed
     */
    @Override
    public OwnershipFence claim(String owner, String group, String topic, int partition) {
        requireNotBlank(owner, "owner");
        OwnershipFence.Epoch first = new OwnershipFence.Epoch(group, topic, partition, 1); // checks the arguments
        requireOpen();
        OffsetDateTime now = utc(clock.instant());
        long epoch = jdbc.execute("claiming " + first.partitionName() + " for " + owner, connection -> {
            try (PreparedStatement claim = connection.prepareStatement(CLAIM)) {
                claim.setString(1, group);
                claim.setString(2, topic);
                claim.setInt(3, partition);
                claim.setString(4, owner);
                claim.setObject(5, now);
                try (ResultSet rows = claim.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                }
            }
        });
        return new OwnershipFence.Epoch(group, topic, partition, epoch);
    }

    /** {@code work} alone if there is no fence; else in one transaction after the fence ({@link #FENCE}) passed. */
    private <T> Jdbc.Work<T> fenced(
            OwnershipFence fence, String processor, DomainEventStream stream, Jdbc.Work<T> work) {
        if (!(fence instanceof OwnershipFence.Epoch held)) {
            return work;
        }
        return connection -> inTransaction(connection, inside -> {
            checkOwnership(inside, held, processor, stream);
            return work.run(inside);
        });
    }

    private void checkOwnership(
            Connection connection, OwnershipFence.Epoch held, String processor, DomainEventStream stream)
            throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(FENCE)) {
            query.setString(1, held.group());
            query.setString(2, held.topic());
            query.setInt(3, held.partition());
            try (ResultSet rows = query.executeQuery()) {
                long current = rows.next() ? rows.getLong(1) : 0;
                if (current != held.epoch()) {
                    String owner = current == 0 ? "nobody" : rows.getString(2);
                    throw OwnershipLostException.refused(
                            "PostgresDeadLetterQueue[" + jdbc.server() + "]",
                            "parking " + stream,
                            processor,
                            held,
                            current,
                            owner);
                }
            }
        }
    }

    /** Runs {@code work} in one transaction on {@code connection}: committed if it returns, else rolled back. */
    private static <T> T inTransaction(Connection connection, Jdbc.Work<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            T result = work.run(connection);
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                connection.rollback();
            } catch (SQLException rollback) {
                e.addSuppressed(rollback);
            }
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private Mono<DeadLetter> insert(
            String processor,
            DomainEventStream stream,
            @Nullable ParkedReply reply,
            String reason,
            int attempts,
            boolean ifPresent,
            OwnershipFence fence) {
        return Mono.defer(() -> {
            requireProcessor(processor);
            requireOpen();
            String headers = codec.encodeHeaders(stream.headers());
            String events = codec.encodeEvents(stream.events());
            String command = reply == null ? null : codec.encodePayload(reply.command());
            Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
            Sequence sequence = new Sequence(processor, stream.aggregateId());
            return jdbc.call(
                            "parking " + stream + " for " + processor,
                            fenced(
                                    fence,
                                    processor,
                                    stream,
                                    insertLetter(INSERT, ifPresent, sequence, (insert, first) -> {
                                        int i = first;
                                        insert.setInt(i++, stream.version());
                                        insert.setString(i++, stream.id());
                                        insert.setString(i++, stream.requestId());
                                        insert.setString(i++, stream.commandId());
                                        insert.setObject(i++, utc(stream.createdAt()));
                                        insert.setString(i++, headers);
                                        insert.setString(i++, events);
                                        insert.setString(i++, reason);
                                        insert.setInt(i++, attempts);
                                        insert.setObject(i++, utc(now));
                                        return bindReply(insert, i, reply, command);
                                    })))
                    .flatMap(Mono::justOrEmpty)
                    .map(index -> {
                        parked.add(sequence);
                        return new DeadLetter(processor, index, stream, reason, attempts, now, reply);
                    });
        });
    }

    /** Binds a letter's own columns, from parameter {@code first} on; returns the next parameter's index. */
    @FunctionalInterface
    private interface LetterColumns {
        int bind(PreparedStatement insert, int first) throws SQLException;
    }

    /**
     * Inserts one letter at the end of its sequence (with {@code ifPresent}, only behind an existing head) and returns
     * its index, or nothing when {@code ifPresent} found no head: {@code sql} binds the sequence twice (the row's key
     * and its next index), then the letter's columns.
     */
    private static Jdbc.Work<Optional<Long>> insertLetter(
            String sql, boolean ifPresent, Sequence sequence, LetterColumns columns) {
        return connection -> {
            try (PreparedStatement insert =
                    connection.prepareStatement(sql + (ifPresent ? IF_PRESENT : " RETURNING sequence_index"))) {
                int i = columns.bind(insert, bindSequence(insert, bindSequence(insert, 1, sequence), sequence));
                if (ifPresent) {
                    bindSequence(insert, i, sequence);
                }
                try (ResultSet rows = insert.executeQuery()) {
                    return rows.next() ? Optional.of(rows.getLong(1)) : Optional.empty();
                }
            }
        };
    }

    /** Binds the {@code reply_} columns: all NULL for a stream. */
    private static int bindReply(
            PreparedStatement insert, int index, @Nullable ParkedReply reply, @Nullable String command)
            throws SQLException {
        if (reply == null || command == null) {
            insert.setNull(index, Types.INTEGER);
            for (int i = index + 1; i < index + 7; i++) {
                insert.setNull(i, Types.VARCHAR);
            }
            return index + 7;
        }
        insert.setInt(index, reply.causeSequence());
        int i = PostgresEventStore.bindKey(insert, index + 1, reply.target());
        insert.setString(i++, reply.requestId());
        insert.setString(i++, command);
        return i;
    }

    @Override
    public Mono<List<DeadLetterSequence>> sequences() {
        return call("listing the parked dead-letter sequences", connection -> {
            try (PreparedStatement query = connection.prepareStatement(SEQUENCES)) {
                return sequences(query);
            }
        });
    }

    private static List<DeadLetterSequence> sequences(PreparedStatement query) throws SQLException {
        List<DeadLetterSequence> sequences = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                sequences.add(new DeadLetterSequence(rows.getString(1), aggregateId(rows, 2), rows.getInt(6)));
            }
        }
        return sequences;
    }

    @Override
    public Mono<List<DeadLetter>> list(String processor, AggregateId aggregateId) {
        Sequence sequence = new Sequence(processor, aggregateId);
        return call("listing the dead letters of " + aggregateId + " for " + processor, connection -> {
            try (PreparedStatement query = connection.prepareStatement(LIST)) {
                bindSequence(query, 1, sequence);
                return letters(query, sequence);
            }
        });
    }

    private List<DeadLetter> letters(PreparedStatement query, Sequence sequence) throws SQLException {
        List<DeadLetter> letters = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                letters.add(letter(rows, sequence));
            }
        }
        return letters;
    }

    private DeadLetter letter(ResultSet rows, Sequence sequence) throws SQLException {
        String command = rows.getString(19);
        if (command != null) {
            return DeadLetter.ofCommand(
                    sequence.processor(),
                    rows.getLong(1),
                    new CommandMessage(
                            rows.getString(5),
                            sequence.aggregateId(),
                            rows.getString(4),
                            codec.decodeLetterPayload(command),
                            rows.getObject(6, OffsetDateTime.class).toInstant(),
                            codec.decodeHeaders(rows.getString(7))),
                    rows.getString(9),
                    rows.getInt(10),
                    rows.getObject(11, OffsetDateTime.class).toInstant());
        }
        DomainEventStream stream = new DomainEventStream(
                rows.getString(3),
                sequence.aggregateId(),
                rows.getInt(2),
                rows.getString(4),
                rows.getString(5),
                codec.decodeLetterEvents(rows.getString(8)),
                rows.getObject(6, OffsetDateTime.class).toInstant(),
                codec.decodeHeaders(rows.getString(7)));
        return new DeadLetter(
                sequence.processor(),
                rows.getLong(1),
                stream,
                rows.getString(9),
                rows.getInt(10),
                rows.getObject(11, OffsetDateTime.class).toInstant(),
                reply(rows));
    }

    /** The {@code reply_} columns of a letter (from column 12), or {@code null} for a stream's. */
    private @Nullable ParkedReply reply(ResultSet rows) throws SQLException {
        String requestId = rows.getString(17);
        String command = rows.getString(18);
        if (requestId == null || command == null) {
            return null;
        }
        return new ParkedReply(rows.getInt(12), aggregateId(rows, 13), codec.decodeLetterPayload(command), requestId);
    }

    @Override
    public Mono<Void> evict(DeadLetter letter) {
        Sequence sequence = new Sequence(letter.processor(), letter.aggregateId());
        return call("removing " + letter, connection -> {
                    try (PreparedStatement delete = connection.prepareStatement(EVICT)) {
                        delete.setLong(bindSequence(delete, 1, sequence), letter.index());
                        delete.executeUpdate();
                    }
                    return exists(connection, sequence);
                })
                .doOnNext(exists -> {
                    if (!exists) {
                        parked.remove(sequence);
                    }
                })
                .then();
    }

    private static boolean exists(Connection connection, Sequence sequence) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(EXISTS)) {
            bindSequence(query, 1, sequence);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() && rows.getBoolean(1);
            }
        }
    }

    @Override
    public Mono<Void> update(DeadLetter letter) {
        Sequence sequence = new Sequence(letter.processor(), letter.aggregateId());
        return call("updating " + letter, connection -> {
                    try (PreparedStatement update = connection.prepareStatement(UPDATE)) {
                        update.setString(1, letter.reason());
                        update.setInt(2, letter.attempts());
                        update.setObject(3, utc(letter.parkedAt()));
                        update.setLong(bindSequence(update, 4, sequence), letter.index());
                        return update.executeUpdate();
                    }
                })
                .then();
    }

    /**
     * Removes every letter of {@code processor} in one statement, then forgets its sequences in the parked set (see
     * {@link DeadLetterQueue#discard}). Requested retries of its sequences stay until taken, and are dropped then if
     * their sequence is gone.
     */
    @Override
    public Mono<Integer> discard(String processor) {
        return Mono.defer(() -> call("discarding the dead letters of " + requireProcessor(processor), connection -> {
                    try (PreparedStatement delete = connection.prepareStatement(DISCARD)) {
                        delete.setString(1, processor);
                        return delete.executeUpdate();
                    }
                }))
                .doOnNext(removed ->
                        parked.removeIf(sequence -> sequence.processor().equals(processor)));
    }

    /**
     * Asks the instances running {@code processor} to retry the sequence in its lane (they take requests with {@link
     * #takeRetryRequests(Set)}); for tools outside those instances. Idempotent until taken.
     */
    public Mono<Void> requestRetry(String processor, AggregateId aggregateId) {
        Sequence sequence =
                new Sequence(requireProcessor(processor), Objects.requireNonNull(aggregateId, "aggregateId"));
        return call("requesting a retry of " + aggregateId + " for " + processor, connection -> {
                    try (PreparedStatement insert = connection.prepareStatement(REQUEST_RETRY)) {
                        bindSequence(insert, 1, sequence);
                        return insert.executeUpdate();
                    }
                })
                .then();
    }

    /**
     * Takes the requested retries of these processors, each once, with the size of its sequence; requests for gone
     * sequences are dropped.
     */
    @Override
    public Mono<List<DeadLetterSequence>> takeRetryRequests(Set<String> processors) {
        List<String> names = List.copyOf(processors);
        return call("taking the requested dead-letter retries of " + names, connection -> {
            try (PreparedStatement query = connection.prepareStatement(TAKE_RETRIES)) {
                query.setArray(1, connection.createArrayOf("text", names.toArray()));
                return sequences(query);
            }
        });
    }

    /**
     * Takes the requested retries of these processors whose aggregate falls in one of {@code segments} (all of one
     * count), each once; the requests of other segments stay for the instances that read them. One statement: the
     * segment is computed in the database as {@link Segment#hash} computes it in Java.
     */
    @Override
    public Mono<List<DeadLetterSequence>> takeRetryRequests(Set<String> processors, Set<Segment> segments) {
        return Mono.defer(() -> {
            if (segments.isEmpty()) {
                return Mono.just(List.of());
            }
            int count = Segment.commonCount(segments);
            if (count == 1) {
                return takeRetryRequests(processors);
            }
            List<String> names = List.copyOf(processors);
            Integer[] indexes = segments.stream().map(Segment::index).sorted().toArray(Integer[]::new);
            return call(
                    "taking the requested dead-letter retries of " + names + " in segments " + segments, connection -> {
                        try (PreparedStatement query = connection.prepareStatement(TAKE_SEGMENT_RETRIES)) {
                            query.setArray(1, connection.createArrayOf("text", names.toArray()));
                            query.setInt(2, count - 1);
                            query.setArray(3, connection.createArrayOf("integer", indexes));
                            return sequences(query);
                        }
                    });
        });
    }

    private <T> Mono<T> call(String operation, Jdbc.Work<T> work) {
        return Mono.defer(() -> {
            requireOpen();
            return jdbc.call(operation, work);
        });
    }

    private static int bindSequence(PreparedStatement statement, int index, Sequence sequence) throws SQLException {
        statement.setString(index, sequence.processor());
        return PostgresEventStore.bindKey(statement, index + 1, sequence.aggregateId());
    }

    private static AggregateId aggregateId(ResultSet rows, int from) throws SQLException {
        return AggregateId.of(
                NamedAggregate.of(rows.getString(from + 1), rows.getString(from + 2)),
                rows.getString(from + 3),
                rows.getString(from));
    }

    private static OffsetDateTime utc(Instant instant) {
        return OffsetDateTime.ofInstant(instant.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
    }

    private static void requireNotBlank(String value, String name) {
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank: '" + value + "'");
        }
    }

    private static String requireProcessor(String processor) {
        if (processor.isBlank()) {
            throw new IllegalArgumentException("processor must not be blank: '" + processor + "'");
        }
        return processor;
    }

    private void requireOpen() {
        if (jdbc.isClosed()) {
            throw new IllegalStateException("The dead-letter queue on " + jdbc.server() + " is closed");
        }
    }

    /** {@code host:port/database}, as used in error messages. */
    public String server() {
        return jdbc.server();
    }

    /** Stops the queue's scheduler and, if {@code connect} opened it, the pool. Idempotent. */
    @Override
    public void close() {
        jdbc.close();
    }

    @Override
    public String toString() {
        return "PostgresDeadLetterQueue[" + jdbc.server() + ", " + parked.size() + " sequence(s) parked]";
    }
}
