package dev.lanes.test;

import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;

/** {@link CommandDeadLettersContract} over {@link DeadLetterQueues#inMemory()}. */
class InMemoryCommandDeadLettersTest extends CommandDeadLettersContract {

    @Override
    protected DeadLetterQueue createQueue() {
        return DeadLetterQueues.inMemory();
    }
}
