package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.event.OwnershipFence;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.deadletter.DeadLetter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Two {@link PostgresDeadLetterQueue}s on one database stand for two instances of one processor: a partition's parking
 * carries the epoch its instance took when it was assigned the partition, and fails once another instance took a later
 * one. The races hold one side inside PostgreSQL (a lock another session holds, watched in {@code pg_stat_activity}) to
 * show both orders the {@code FOR SHARE} fence serializes: a parking that waited for a claim fails; a claim that
 * waited for a parking is followed by a reload that sees it.
 */
class PartitionOwnershipFencingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");
    private static final String PROCESSOR = "Fenced";
    private static final String TOPIC = "lanes.sales.events";

    /** A database of this class's own: the contract suites retry every sequence of theirs. */
    private static HikariDataSource pool;

    private final String group = "lanes.fenced-" + UUID.randomUUID();
    private final List<PostgresDeadLetterQueue> opened = new ArrayList<>();

    /** A stream's payload. */
    record Touched(String label) {}

    @BeforeAll
    static void createDatabase() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl(TestDatabase.createDatabase()));
        config.setUsername(TestDatabase.USER);
        config.setMaximumPoolSize(8);
        pool = new HikariDataSource(config);
        Migrations.apply(pool);
    }

    @AfterAll
    static void closeDatabase() {
        pool.close();
    }

    @AfterEach
    void close() {
        opened.forEach(PostgresDeadLetterQueue::close);
    }

    @Test
    void anInstanceWhosePartitionAnotherClaimedCannotParkForItAndTheNewOwnerCan() {
        PostgresDeadLetterQueue first = queue();
        PostgresDeadLetterQueue second = queue();
        AggregateId id = fresh("moved");
        AggregateId elsewhere = fresh("stays");

        OwnershipFence.Epoch held = claim(first, "instance-1", 0);
        OwnershipFence.Epoch kept = claim(first, "instance-1", 1);
        assertThat(first.enqueue(PROCESSOR, stream(id, 2), "poison", 1, held).block(TIMEOUT))
                .as("parked while the partition is the first instance's")
                .isNotNull();
        OwnershipFence.Epoch taken = claim(second, "instance-2", 0);

        assertThat(held.epoch()).isOne();
        assertThat(taken.epoch()).isEqualTo(2);
        assertThatThrownBy(() -> first.enqueue(PROCESSOR, stream(id, 3), "poison", 1, held)
                        .block(TIMEOUT))
                .isInstanceOfSatisfying(OwnershipLostException.class, lost -> {
                    assertThat(lost.held()).isEqualTo(held);
                    assertThat(lost.currentEpoch()).isEqualTo(2);
                })
                .hasMessageContaining("refused parking")
                .hasMessageContaining(" for " + PROCESSOR + ": partition " + group + "/" + TOPIC + "-0 is at epoch 2"
                        + " (taken by instance-2), this instance holds epoch 1");
        assertThatThrownBy(() -> first.enqueueIfPresent(PROCESSOR, stream(id, 3), "behind the head", held)
                        .block(TIMEOUT))
                .as("behind an existing head too")
                .isInstanceOf(OwnershipLostException.class);
        assertThat(versions(first, id))
                .as("nothing stored by the instance that lost the partition")
                .containsExactly(2);

        assertThat(second.enqueueIfPresent(PROCESSOR, stream(id, 3), "behind the head", taken)
                        .block(TIMEOUT))
                .isNotNull();
        assertThat(versions(second, id)).containsExactly(2, 3);
        assertThat(first.enqueue(PROCESSOR, stream(elsewhere, 1), "poison", 1, kept)
                        .block(TIMEOUT))
                .as("the partition the first instance still holds")
                .isNotNull();
    }

    @Test
    void aClaimOfAPartitionNeverAssignedBeforeTakesEpochOneAndAStreamWithoutAFenceIsNotChecked() {
        PostgresDeadLetterQueue first = queue();
        PostgresDeadLetterQueue second = queue();
        AggregateId id = fresh("unfenced");
        claim(first, "instance-1", 7);
        claim(second, "instance-2", 7);

        assertThat(first.enqueue(PROCESSOR, stream(id, 1), "poison", 1, OwnershipFence.NONE)
                        .block(TIMEOUT))
                .as("a retry or a bus that does not move work carries no fence")
                .isNotNull();
        assertThat(claim(first, "instance-1", 8).epoch()).isOne();
    }

    @Test
    void aClaimWithABlankOwnerFailsNamingIt() {
        PostgresDeadLetterQueue queue = queue();
        assertThatThrownBy(() -> queue.claim(" ", group, TOPIC, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("owner must not be blank: ' '");
        assertThatThrownBy(() -> queue.claim("instance-1", group, TOPIC, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition must not be negative: -1");
    }

    /**
     * The old owner's parking asks for the partition's row while a claim holds it (here: after another session that
     * locked the row first, so the claim is queued ahead of the parking). The parking's statement began before the
     * claim committed, yet it must not pass on the epoch of its snapshot: it fails, naming the claim's epoch, and
     * stores nothing; the new owner then parks behind the head it reloaded.
     */
    @Test
    void aParkingThatWaitedForAClaimOfItsPartitionFailsAndStoresNothing() throws Exception {
        PostgresDeadLetterQueue first = queue();
        PostgresDeadLetterQueue second = queue();
        AggregateId id = fresh("raced");
        OwnershipFence.Epoch held = claim(first, "instance-1", 0);
        first.enqueue(PROCESSOR, stream(id, 2), "poison", 1, held).block(TIMEOUT);

        CompletableFuture<OwnershipFence> claimed;
        Mono<DeadLetter> parking;
        try (Connection other = pool.getConnection()) {
            other.setAutoCommit(false);
            lockOwnerRow(other, 0);
            claimed = CompletableFuture.supplyAsync(() -> second.claim("instance-2", group, TOPIC, 0));
            awaitWaiting("INSERT INTO lanes_partition_owners", claimed);
            parking = first.enqueueIfPresent(PROCESSOR, stream(id, 3), "behind the head", held)
                    .cache();
            CompletableFuture<DeadLetter> parked = parking.toFuture();
            awaitWaiting("SELECT epoch, owner FROM lanes_partition_owners", parked);
            assertThat(parked)
                    .as("the parking waits for the row the claim is about to update")
                    .isNotDone();
            other.commit(); // the claim goes first: it was queued first
        }
        OwnershipFence taken = claimed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        second.reload();
        assertThat(second.enqueueIfPresent(PROCESSOR, stream(id, 4), "behind the head", taken)
                        .block(TIMEOUT))
                .as("the new owner moved on behind the head it reloaded")
                .isNotNull();

        assertThatThrownBy(() -> parking.block(TIMEOUT))
                .isInstanceOf(OwnershipLostException.class)
                .hasMessageContaining("is at epoch 2 (taken by instance-2), this instance holds epoch 1");
        assertThat(versions(second, id)).containsExactly(2, 4);
    }

    /**
     * The other order: the old owner's parking passed its fence and its insert is held (by an uncommitted row of the
     * same key in another session) when the new owner claims the partition and, as the bus does, reloads at once. The
     * claim waits for the parking's transaction, so the reload that follows it sees the parked sequence.
     */
    @Test
    void aClaimThatWaitedForAParkingOfItsPartitionIsFollowedByAReloadThatSeesIt() throws Exception {
        PostgresDeadLetterQueue first = queue();
        PostgresDeadLetterQueue second = queue(); // loaded before anything of the aggregate is parked
        AggregateId id = fresh("first");
        OwnershipFence.Epoch held = claim(first, "instance-1", 0);

        CompletableFuture<Boolean> seenAfterClaim;
        Mono<DeadLetter> parking;
        try (Connection other = pool.getConnection()) {
            other.setAutoCommit(false);
            holdFirstIndex(other, id);
            parking = first.enqueue(PROCESSOR, stream(id, 2), "poison", 1, held).cache();
            CompletableFuture<DeadLetter> parked = parking.toFuture();
            awaitWaiting("INSERT INTO lanes_dead_letters", parked);
            seenAfterClaim = CompletableFuture.supplyAsync(() -> {
                second.claim("instance-2", group, TOPIC, 0);
                second.reload();
                return second.isParked(PROCESSOR, id);
            });
            awaitWaiting("INSERT INTO lanes_partition_owners", seenAfterClaim);
            other.rollback(); // the parking's insert goes on, with index 1
        }
        assertThat(parking.block(TIMEOUT)).as("parked on the epoch it checked").isNotNull();
        assertThat(seenAfterClaim.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                .as("the new owner's reload after its claim sees the sequence")
                .isTrue();
    }

    private PostgresDeadLetterQueue queue() {
        PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.open(pool);
        opened.add(queue);
        return queue;
    }

    private OwnershipFence.Epoch claim(PostgresDeadLetterQueue queue, String owner, int partition) {
        return (OwnershipFence.Epoch) queue.claim(owner, group, TOPIC, partition);
    }

    private static AggregateId fresh(String label) {
        return AggregateId.of(ORDER, label + "-" + UUID.randomUUID());
    }

    private static DomainEventStream stream(AggregateId id, int version) {
        return new DomainEventStream(
                UUID.randomUUID().toString(),
                id,
                version,
                "request-" + version,
                "command-" + version,
                List.of(new DomainEvent(1, new Touched(id.id() + " v" + version))),
                Instant.now().truncatedTo(ChronoUnit.MICROS),
                Map.of());
    }

    private static List<Integer> versions(PostgresDeadLetterQueue queue, AggregateId id) {
        List<DeadLetter> letters = queue.list(PROCESSOR, id).block(TIMEOUT);
        assertThat(letters).isNotNull();
        return letters.stream().map(letter -> letter.stream().version()).toList();
    }

    /** Locks the partition's row as a claim would, uncommitted. */
    private void lockOwnerRow(Connection connection, int partition) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement("SELECT epoch FROM lanes_partition_owners"
                + " WHERE consumer_group = ? AND topic = ? AND partition_index = ? FOR UPDATE")) {
            lock.setString(1, group);
            lock.setString(2, TOPIC);
            lock.setInt(3, partition);
            try (ResultSet rows = lock.executeQuery()) {
                assertThat(rows.next()).isTrue();
            }
        }
    }

    /** Inserts, uncommitted, a letter at index 1 of the aggregate's sequence: a parking of it waits for this row. */
    private static void holdFirstIndex(Connection connection, AggregateId id) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO lanes_dead_letters (processor,"
                + " tenant_id, context_name, aggregate_name, aggregate_id, sequence_index, version, stream_id,"
                + " request_id, command_id, created_at, headers, events, reason, attempts, parked_at)"
                + " VALUES (?, ?, ?, ?, ?, 1, 1, 'held', 'held', 'held', now(), '{}', '[]', 'held', 0, now())")) {
            insert.setString(1, PROCESSOR);
            PostgresEventStore.bindKey(insert, 2, id);
            assertThat(insert.executeUpdate()).isOne();
        }
    }

    /** Until a session runs a statement that starts with {@code statement} and waits for a lock, or {@code work} ended. */
    private static void awaitWaiting(String statement, CompletableFuture<?> work) {
        Awaitility.await().atMost(TIMEOUT).until(() -> work.isDone() || waiting(statement) > 0);
    }

    private static int waiting(String statement) throws SQLException {
        try (Connection connection = pool.getConnection();
                PreparedStatement query = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                        + " WHERE wait_event_type = 'Lock' AND starts_with(query, ?)")) {
            query.setString(1, statement);
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }
}
