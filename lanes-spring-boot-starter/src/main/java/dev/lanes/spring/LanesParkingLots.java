package dev.lanes.spring;

import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetainingParkingLot;
import java.util.Objects;

/**
 * Where the auto-configured {@link dev.lanes.Lanes} parks what its retries could not handle: commands on the command
 * side, event streams and saga replies on the event side. The health indicator reports how many each holds. Declare a
 * bean of this type to replace the in-memory lots.
 *
 * @param commands the command dispatcher's parking lot
 * @param events the event dispatcher's parking lot
 */
public record LanesParkingLots(RetainingParkingLot commands, RetainingParkingLot events) {

    public LanesParkingLots {
        Objects.requireNonNull(commands, "commands");
        Objects.requireNonNull(events, "events");
    }

    /** Two new {@link ParkingLots#inMemory()} lots. */
    public static LanesParkingLots inMemory() {
        return new LanesParkingLots(ParkingLots.inMemory(), ParkingLots.inMemory());
    }
}
