package dev.lanes.postgres;

import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.test.CommandDeadLettersContract;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link CommandDeadLettersContract} over {@link PostgresDeadLetterQueue} on the embedded PostgreSQL (schema version 7):
 * parked commands outlive the runtime, and a new runtime over the same table holds and retries them.
 */
class PostgresCommandDeadLettersTest extends CommandDeadLettersContract {
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
}
