package dev.lanes.deadline;

/** The deadline stores of the core. */
public final class DeadlineStores {

    private DeadlineStores() {}

    /** A store in memory: its deadlines live as long as the object (share it between runtimes to model a restart). */
    public static DeadlineStore inMemory() {
        return new InMemoryDeadlineStore();
    }
}
