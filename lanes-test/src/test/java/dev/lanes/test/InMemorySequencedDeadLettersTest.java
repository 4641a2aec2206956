package dev.lanes.test;

import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;

/** {@link SequencedDeadLettersContract} over {@link DeadLetterQueues#inMemory()}. */
class InMemorySequencedDeadLettersTest extends SequencedDeadLettersContract {

    @Override
    protected DeadLetterQueue createQueue() {
        return DeadLetterQueues.inMemory();
    }
}
