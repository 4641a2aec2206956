package dev.lanes.dispatch;

/** How exchanges are grouped into serial lanes. */
public enum LaneStrategy {
    /**
     * The seed's groups: lane = {@link MessageParallelism#toGroupKey} under the dispatcher's parallelism. Ids whose
     * hashes collide share one serial lane and wait for each other.
     */
    HASHED,
    /**
     * One lane per aggregate id: exact per-id order, and two different ids never wait for each other. Lanes exist only
     * while they hold work, so memory follows what is queued.
     */
    KEYED
}
