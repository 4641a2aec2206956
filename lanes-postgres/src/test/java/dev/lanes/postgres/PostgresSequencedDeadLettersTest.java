package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.test.SequencedDeadLettersContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@link SequencedDeadLettersContract} over {@link PostgresDeadLetterQueue} on the embedded PostgreSQL, plus what only a
 * durable queue can show: a restart keeps the sequences parked, and a retry asked for from outside is run.
 */
class PostgresSequencedDeadLettersTest extends SequencedDeadLettersContract {
    private final List<PostgresDeadLetterQueue> opened = new ArrayList<>();

    @Override
    protected DeadLetterQueue createQueue() {
        PostgresDeadLetterQueue queue =
                PostgresDeadLetterQueue.open(TestDatabase.store().dataSource());
        opened.add(queue);
        return queue;
    }

    @Override
    protected void afterStopped() {
        opened.forEach(PostgresDeadLetterQueue::close);
    }

    /**
     * The queue stores an event its bus could not decode as it was encoded, reads it back so with the same codec, and
     * decodes it once a codec that reads it is deployed: after that release's restart, a retry delivers the sequence.
     */
    @Test
    void anUndecodedEventIsStoredAsEncodedAndARetryAfterACodecThatReadsItWasDeployedDeliversTheSequenceInOrder() {
        AggregateId id = fresh("deployed");
        CompositeEventDispatcher before = start(createQueue());
        publish(id, 1);
        publishUndecoded(id, 2);
        publish(id, 3);
        awaitParked(before.deadLetters(), id, 2);
        before.stopGracefully().block(TIMEOUT);
        EventTypes deployed =
                EventTypes.builder().register(Touched.class, UNDECODED_TYPE, 2).build();
        PostgresDeadLetterQueue reading = PostgresDeadLetterQueue.open(
                TestDatabase.store().dataSource(),
                new JacksonEventSerializer(JacksonEventSerializer.defaultObjectMapper(), deployed));
        opened.add(reading);

        CompositeEventDispatcher after = start(reading);
        List<DeadLetter> letters = awaitParked(after.deadLetters(), id, 2);

        assertThat(letters.get(0).requireStream().payloads()).containsExactly(new Touched(id.id() + " v2"));
        assertThat(after.deadLetters().retry("Poisoned", id).block(TIMEOUT))
                .isEqualTo(new RetryOutcome("Poisoned", id, 2, 0, 0, null));
        assertThat(journal().handled("Poisoned", id)).containsExactly(1, 2, 3);
    }

    /**
     * A saga reply parked in the table outlives its process: a new queue over the same database (a restart) lists it
     * with what reproduces it, the aggregate's later stream still behind it, and its retry sends the command again with
     * its request id and delivers the reply, then the later stream.
     */
    @Test
    void aRestartKeepsASagaReplyParkedWithTheStreamsBehindItAndItsRetryDeliversThemInOrder() {
        AggregateId id = fresh("compensated-restarted");
        CompositeEventDispatcher before = startSaga(createQueue());
        List<DeadLetter> parked = parkSagaReply(before, id);
        before.stopGracefully().block(TIMEOUT);

        CompositeEventDispatcher after = startSaga(createQueue());
        List<DeadLetter> letters = after.deadLetters().list(SAGA, id).block(TIMEOUT);

        assertThat(letters).isEqualTo(parked);
        assertThat(letters.get(0).reply()).isNotNull();
        assertThat(letters.get(0).reply().command()).isEqualTo(new Credit(id.id() + " v1"));
        assertThat(retryCuredSaga(after, id)).isEqualTo(new RetryOutcome(SAGA, id, 2, 0, 0, null));
        assertThat(sagaLog(id)).containsExactly("event v1", "reply v1 failed", "event v2", "reply v2 failed");
    }

    @Test
    void aRestartKeepsTheSequencesParkedAndLaterStreamsStayBehindThem() {
        AggregateId id = fresh("restarted");
        poison(id, 2);
        CompositeEventDispatcher before = start(createQueue());
        publish(id, 1, 2, 3);
        awaitParked(before.deadLetters(), id, 2);
        before.stopGracefully().block(TIMEOUT);

        CompositeEventDispatcher after = start(createQueue()); // a new process: the parked set comes from the table
        publish(id, 4);
        List<DeadLetter> letters = awaitParked(after.deadLetters(), id, 3);

        assertThat(letters).extracting(letter -> letter.stream().version()).containsExactly(2, 3, 4);
        assertThat(letters.get(0).reason()).isEqualTo("java.lang.IllegalStateException: poisoned " + id + " v2");
        assertThat(letters.get(0).requireStream().payloads()).containsExactly(new Touched(id.id() + " v2"));
        cure();
        assertThat(after.deadLetters().retry("Poisoned", id).block(TIMEOUT))
                .isEqualTo(new RetryOutcome("Poisoned", id, 3, 0, 0, null));
        assertThat(journal().handled("Poisoned", id)).containsExactly(1, 2, 3, 4);
    }

    @Test
    void aReloadAddsTheSequencesAnotherInstanceParkedAndKeepsThoseItRemovedUntilTheirNextStream() {
        AggregateId id = fresh("elsewhere");
        poison(id, 2);
        DeadLetterQueue taker = createQueue(); // loaded before the other instance parks
        CompositeEventDispatcher other = start(createQueue());
        publish(id, 1, 2);
        awaitParked(other.deadLetters(), id, 1);
        assertThat(taker.isParked("Poisoned", id)).isFalse();

        taker.reload();

        assertThat(taker.isParked("Poisoned", id)).isTrue();
        cure();
        other.deadLetters().retry("Poisoned", id).block(TIMEOUT);
        taker.reload();
        assertThat(taker.isParked("Poisoned", id))
                .as("a sequence gone from the table is found gone at the next stream, not by a reload")
                .isTrue();
    }

    @Test
    void aRetryRequestedFromOutsideIsTakenOnceAndRunInTheLane() {
        AggregateId id = fresh("requested");
        poison(id, 2);
        CompositeEventDispatcher side = start(createQueue());
        publish(id, 1, 2, 3);
        awaitParked(side.deadLetters(), id, 2);
        cure();

        PostgresDeadLetterQueue tool =
                PostgresDeadLetterQueue.open(TestDatabase.store().dataSource());
        opened.add(tool);
        tool.requestRetry("Poisoned", id).block(TIMEOUT);

        awaitParked(side.deadLetters(), id, 0); // each letter leaves the table once handled
        assertThat(journal().handled("Poisoned", id)).containsExactly(1, 2, 3);
        assertThat(tool.takeRetryRequests(Set.of("Poisoned")).block(TIMEOUT))
                .noneMatch(sequence -> sequence.aggregateId().equals(id));
    }

    /**
     * The partition's owner, on another instance, checks that the head is parked before a retry evicts it, and its row
     * is stored only after the retry's last look at the sequence. The owner's insert is held after its check here by a
     * row of the same key that another session inserted and has not committed. Parking behind a head and evicting it
     * are serialized (the check locks the head it finds), so the retry's eviction waits for the owner's row, and the
     * retry delivers it.
     */
    @Test
    void aStreamWhoseParkingCheckedForTheHeadBeforeARetryEvictedItIsDeliveredByThatRetry() throws SQLException {
        AggregateId id = fresh("serialized");
        poison(id, 2);
        DeadLetterQueue owner = createQueue();
        CompositeEventDispatcher side = start(createQueue());
        publish(id, 1, 2, 3);
        List<DeadLetter> letters = awaitParked(side.deadLetters(), id, 2);
        try (Connection other = TestDatabase.store().dataSource().getConnection()) {
            other.setAutoCommit(false);
            holdIndex(other, id, letters.get(1).index(), letters.get(1).index() + 1);
            Mono<DeadLetter> parking = owner.enqueueIfPresent("Poisoned", stream(id, 4), "behind the head")
                    .cache();
            parking.subscribe();
            awaitWaiting("INSERT INTO lanes_dead_letters");
            cure();

            Mono<RetryOutcome> retry = side.deadLetters().retry("Poisoned", id).cache();
            CompletableFuture<RetryOutcome> done = retry.toFuture();
            Awaitility.await()
                    .atMost(TIMEOUT)
                    .until(() -> done.isDone() || waiting("DELETE FROM lanes_dead_letters") > 0);
            other.rollback(); // the owner's insert goes on, with the index it took

            assertThat(parking.block(TIMEOUT))
                    .as("the owner parked v4 behind the head")
                    .isNotNull();
            assertThat(retry.block(TIMEOUT)).isEqualTo(new RetryOutcome("Poisoned", id, 3, 0, 0, null));
        }
        assertThat(journal().handled("Poisoned", id)).containsExactly(1, 2, 3, 4);
        assertThat(side.deadLetters().list("Poisoned", id).block(TIMEOUT)).isEmpty();
    }

    /** Inserts, uncommitted, a copy of letter {@code from} at index {@code at}: an insert of that key waits for it. */
    private static void holdIndex(Connection connection, AggregateId id, long from, long at) throws SQLException {
        String columns = "version, stream_id, request_id, command_id, created_at, headers, events, reason, attempts,"
                + " parked_at";
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO lanes_dead_letters (processor,"
                + " tenant_id, context_name, aggregate_name, aggregate_id, sequence_index, " + columns + ")"
                + " SELECT processor, tenant_id, context_name, aggregate_name, aggregate_id, ?, " + columns
                + " FROM lanes_dead_letters"
                + " WHERE processor = 'Poisoned' AND aggregate_id = ? AND sequence_index = ?")) {
            insert.setLong(1, at);
            insert.setString(2, id.id());
            insert.setLong(3, from);
            assertThat(insert.executeUpdate()).isOne();
        }
    }

    private static void awaitWaiting(String statement) {
        Awaitility.await().atMost(TIMEOUT).until(() -> waiting(statement) > 0);
    }

    /** Sessions whose current statement starts with {@code statement} and waits for a lock. */
    private static int waiting(String statement) throws SQLException {
        try (Connection connection = TestDatabase.store().dataSource().getConnection();
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
