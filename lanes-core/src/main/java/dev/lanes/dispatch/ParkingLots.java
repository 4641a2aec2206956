package dev.lanes.dispatch;

/** The parking lots Lanes ships in its core. */
public final class ParkingLots {
    private ParkingLots() {}

    /**
     * A new parking lot that keeps parked messages in memory, in parking order, and logs each at WARN. Unbounded:
     * parked messages are exceptional, and dropping them would lose them in silence; drain it with {@link
     * RetainingParkingLot#takeAll()}.
     */
    public static RetainingParkingLot inMemory() {
        return new InMemoryParkingLot();
    }
}
