package dev.lanes.test;

import dev.lanes.processing.DeadLetterQueue;
import dev.lanes.processing.DeadLetterQueues;
import dev.lanes.test.logging.LogCapture;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link SequencedDeadLettersContract} over {@link DeadLetterQueues#inMemory()}. */
class InMemorySequencedDeadLettersTest extends SequencedDeadLettersContract {

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @Override
    protected DeadLetterQueue createQueue() {
        return DeadLetterQueues.inMemory();
    }
}
