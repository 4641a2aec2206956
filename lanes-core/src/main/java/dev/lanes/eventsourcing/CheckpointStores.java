package dev.lanes.eventsourcing;

import java.time.Clock;
import java.util.Objects;

/** The checkpoint stores Lanes ships in its core; a durable one lives in {@code lanes-postgres}. */
public final class CheckpointStores {
    private CheckpointStores() {}

    /** In memory, leases timed on the system clock: for tests and single-instance services. */
    public static CheckpointStore inMemory() {
        return inMemory(Clock.systemUTC());
    }

    /** In memory, leases timed on {@code clock}. */
    public static CheckpointStore inMemory(Clock clock) {
        return new InMemoryCheckpointStore(Objects.requireNonNull(clock, "clock"));
    }
}
