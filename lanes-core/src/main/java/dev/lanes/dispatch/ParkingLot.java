package dev.lanes.dispatch;

/**
 * Where messages go that could not be handled (a dead-letter store). The dispatcher acknowledges a message to its
 * source only after {@link #park} returned; if parking throws, the message is rejected back to its source and the fault
 * is reported as fatal, so nothing is lost in silence.
 *
 * <p>Called from lane threads: implementations must not block.
 */
@FunctionalInterface
public interface ParkingLot {

    void park(ParkedMessage parked);
}
