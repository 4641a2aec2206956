package dev.lanes.processing.deadletter;

import java.time.Clock;

/** The dead-letter queues Lanes ships in its core. */
public final class DeadLetterQueues {
    private DeadLetterQueues() {}

    /**
     * A new dead-letter queue in memory: sequences are lost with the process (and the bus's redelivery, if any, brings
     * their streams back). Unbounded: dropping a dead letter would lose it in silence.
     */
    public static DeadLetterQueue inMemory() {
        return new InMemoryDeadLetterQueue(Clock.systemUTC());
    }
}
