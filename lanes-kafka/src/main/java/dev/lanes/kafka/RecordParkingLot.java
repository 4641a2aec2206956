package dev.lanes.kafka;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a consumer puts the records it cannot hand to a lane: a record whose envelope cannot be read (so there is no
 * aggregate whose later records could wait behind it; an event stream whose payload alone does not decode goes to its
 * processors' dead-letter queues instead), and a command of a type no receiver of the group serves. The partition
 * moves on past a parked record. Called on the consumer thread: must not block for long. If it throws, the consumer
 * reports a fatal fault (the record is not committed past, so nothing is lost).
 */
@FunctionalInterface
public interface RecordParkingLot {

    void park(ParkedRecord record);

    /** Keeps parked records in memory (unbounded: they are rare) and logs each at WARN. */
    static InMemory inMemory() {
        return new InMemory();
    }

    /** The default parking lot: a list in memory, and a log line per record. */
    final class InMemory implements RecordParkingLot {
        private static final Logger log = LoggerFactory.getLogger(RecordParkingLot.class);
        private final List<ParkedRecord> records = new ArrayList<>();

        private InMemory() {}

        @Override
        public void park(ParkedRecord record) {
            log.warn("Parked {}", record); // the error is in the record and its toString
            synchronized (records) {
                records.add(record);
            }
        }

        /** The parked records, oldest first. */
        public List<ParkedRecord> records() {
            synchronized (records) {
                return List.copyOf(records);
            }
        }
    }
}
