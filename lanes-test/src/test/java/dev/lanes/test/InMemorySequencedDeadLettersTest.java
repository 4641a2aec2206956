package dev.lanes.test;

import dev.lanes.processing.DeadLetterQueue;
import dev.lanes.processing.DeadLetterQueues;

/** {@link SequencedDeadLettersContract} over {@link DeadLetterQueues#inMemory()}. */
class InMemorySequencedDeadLettersTest extends SequencedDeadLettersContract {

    @Override
    protected DeadLetterQueue createQueue() {
        return DeadLetterQueues.inMemory();
    }
}
