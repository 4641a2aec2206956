package dev.lanes.event;

/** The event buses Lanes ships in its core. */
public final class DomainEventBuses {
    /** Streams a consumer group's route holds, by default, before new commands of its type pause: 4,096. */
    public static final int DEFAULT_BUDGET = 4096;

    private DomainEventBuses() {}

    /**
     * A new in-memory bus: one route per (aggregate type, consumer group); {@code publish} hands the stream to every
     * route and never waits. A route holding {@code budget} streams its group has not taken closes the intake gate of
     * its aggregate type, so the command side takes no new commands of that type until every route of the type is back
     * to half its budget. Not durable: a group sees what is published after it subscribed.
     *
     * @param budget streams a consumer group's route may hold before the intake of its aggregate type pauses
     * @throws IllegalArgumentException naming the value if {@code budget} is not positive
     */
    public static DomainEventBus inMemory(int budget) {
        return new InMemoryDomainEventBus(budget);
    }

    /** {@link #inMemory(int)} with {@link #DEFAULT_BUDGET}. */
    public static DomainEventBus inMemory() {
        return inMemory(DEFAULT_BUDGET);
    }
}
