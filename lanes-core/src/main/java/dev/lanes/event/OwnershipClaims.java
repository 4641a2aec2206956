package dev.lanes.event;

/**
 * Takes ownership of the partitions a bus assigns to this instance: a store shared by the instances (the PostgreSQL
 * dead-letter queue) records a new epoch for each, so that the writes of the instance that held it before are refused
 * from then on. Registered with {@link DomainEventBus#claimAssignments}.
 */
@FunctionalInterface
public interface OwnershipClaims {

    /**
     * Takes the next epoch of one partition for {@code owner}. Blocking: the bus calls it on its consumer thread as the
     * partition is assigned, before the {@link DomainEventBus#onAssignment} hooks and before it hands out any of its
     * records; never from a lane.
     *
     * @param owner the instance that takes it (named in the error of a refused write)
     * @return the fence the partition's records carry while this assignment lasts
     * @throws RuntimeException the store's usual failure when it cannot be reached (the bus holds the partition and
     *     runs the claim again)
     */
    OwnershipFence claim(String owner, String group, String topic, int partition);
}
