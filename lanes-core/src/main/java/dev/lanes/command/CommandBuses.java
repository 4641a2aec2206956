package dev.lanes.command;

/** The command buses Lanes ships in its core. */
public final class CommandBuses {
    /** New commands held per aggregate type, by default, before a send fails fast: 16,384. */
    public static final int DEFAULT_CAPACITY_PER_TYPE = 16_384;

    private CommandBuses() {}

    /**
     * A new in-memory bus with two routes per aggregate type a receiver declared: new commands, at most {@code
     * capacityPerType} (rounded up to a power of two, at least 8) waiting for the dispatcher, beyond which a send fails
     * fast with {@link CommandBusOverloadedException}; and follow-ups (a saga's commands), never refused nor paused. A
     * command for a type nobody declared is refused with {@link UnknownAggregateTypeException}. What the dispatcher
     * hands back (a full lane, a stop) reaches the sender through {@code results}; commands still held when the
     * dispatcher goes away are answered as stopped.
     *
     * @param capacityPerType new commands held per aggregate type
     * @param results where the senders of these commands wait: the same as their gateway's
     * @throws IllegalArgumentException naming the value if {@code capacityPerType} is not positive or above 2^30
     */
    public static CommandBus inMemory(int capacityPerType, CommandResults results) {
        return new InMemoryCommandBus(capacityPerType, results);
    }
}
