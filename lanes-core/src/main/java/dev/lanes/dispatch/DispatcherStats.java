package dev.lanes.dispatch;

import java.util.List;

/**
 * A point-in-time view of one dispatcher, cheap enough for gauges and progress lines.
 *
 * @param queued admitted exchanges not yet settled (running ones included)
 * @param inFlight handlers running now
 * @param lanes lanes holding work now
 * @param deepestLane exchanges in the fullest lane
 * @param laneSkew {@code deepestLane} divided by the mean depth of non-empty lanes; 1.0 is even, 0 when idle
 * @param handled exchanges acknowledged after a successful handling, since start
 * @param retried failed attempts that were retried
 * @param parked exchanges parked after their last failure
 * @param rejected exchanges handed back to their source unhandled (overload, admission closed, stop)
 * @param cancelled in-flight handlers cancelled by a force stop
 * @param hottestIds the most frequent aggregate ids of the recent window, most frequent first
 */
public record DispatcherStats(
        int queued,
        int inFlight,
        int lanes,
        int deepestLane,
        double laneSkew,
        long handled,
        long retried,
        long parked,
        long rejected,
        long cancelled,
        List<HotKey> hottestIds) {

    public DispatcherStats {
        hottestIds = List.copyOf(hottestIds);
    }
}
