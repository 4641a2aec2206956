package dev.lanes.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps parked messages in memory, in parking order, and logs each at WARN. Unbounded: parked messages are exceptional,
 * and dropping them would lose them in silence; drain it with {@link #takeAll()}.
 */
final class InMemoryParkingLot implements RetainingParkingLot {
    private static final Logger log = LoggerFactory.getLogger(InMemoryParkingLot.class);
    private final ConcurrentLinkedQueue<ParkedMessage> parked = new ConcurrentLinkedQueue<>();

    InMemoryParkingLot() {}

    @Override
    public void park(ParkedMessage message) {
        parked.add(message);
        log.warn(
                "Parked a message for {} from {} after {} attempt(s): {}",
                message.aggregateId(),
                message.dispatcher(),
                message.attempts(),
                message.error().toString());
    }

    @Override
    public List<ParkedMessage> entries() {
        return List.copyOf(parked);
    }

    @Override
    public List<ParkedMessage> takeAll() {
        List<ParkedMessage> taken = new ArrayList<>();
        for (ParkedMessage next; (next = parked.poll()) != null; ) {
            taken.add(next);
        }
        return taken;
    }

    @Override
    public int size() {
        return parked.size();
    }

    @Override
    public String toString() {
        return "InMemoryParkingLot[" + parked.size() + " parked]";
    }
}
