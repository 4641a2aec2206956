package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.DeadLetter;
import dev.lanes.processing.DeadLetterQueue;
import dev.lanes.processing.RetryOutcome;
import dev.lanes.test.SequencedDeadLettersContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

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
        assertThat(letters.get(0).stream().payloads()).containsExactly(new Touched(id.id() + " v2"));
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
}
