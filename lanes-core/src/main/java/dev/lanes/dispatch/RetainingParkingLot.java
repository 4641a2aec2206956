package dev.lanes.dispatch;

import java.util.List;

/**
 * A parking lot that keeps what it parks, so it can be listed and drained for replay (for example by {@code
 * CompositeEventDispatcher.replayParked()}). Thread-safety: any thread.
 */
public interface RetainingParkingLot extends ParkingLot {

    /** A snapshot of the parked messages, oldest first. */
    List<ParkedMessage> entries();

    /** Removes and returns every parked message, oldest first (for replay). */
    List<ParkedMessage> takeAll();

    /** How many messages are parked. */
    int size();
}
