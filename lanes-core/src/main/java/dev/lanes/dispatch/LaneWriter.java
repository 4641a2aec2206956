package dev.lanes.dispatch;

import dev.lanes.api.AggregateId;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The producer side of the lanes: turns delivered exchanges into envelopes in their lanes. Called only by the holder of
 * the {@link Intake}'s producer side, so nothing here is shared.
 *
 * <p><b>Bursts.</b> Exchanges a source emits inside the dispatcher's own {@code request(n)} are {@linkplain #stage
 * staged}: gathered {@value #BATCH} at a time, counted as admitted in one step, routed in one pass (their lane lookups
 * are independent, so their cache misses overlap), and linked into a private chain per lane. Each lane touched gets the
 * chain with one link and one compare-and-set on its count, when the burst ends ({@link #flush}) or once {@value
 * #PUBLISH_EVERY} are staged, so workers never wait long for a long burst. Exchanges delivered outside a burst (on
 * another thread than the requesting one) are queued by the intake and staged the same way, by the drain it hands to a
 * worker.
 *
 * <p><b>Accounting.</b> Every exchange is counted as admitted before its state check: a gathering reserves {@value
 * #BATCH} slots at its first exchange and gives back what it did not use when it is cut short. So a graceful stop never
 * ends while an exchange is gathered or staged. A force stop that walked a lane before a chain reached it is seen by
 * the check after the chain's count: the chain is then rejected here.
 */
final class LaneWriter<M> implements Intake.Producer<M> {
    /** Exchanges gathered, counted and routed together. */
    static final int BATCH = 32;
    /** Envelopes staged in a burst before they are published without waiting for its end. */
    static final int PUBLISH_EVERY = 1024;

    /** What the dispatcher decides for the producer side. */
    interface Admission<M> {
        /** Counts {@code slots} more exchanges as admitted. */
        void reserve(int slots);

        /** Uncounts slots reserved and not used by any exchange (no credit goes back to the source). */
        void unreserve(int slots);

        boolean running();

        boolean forceStopped();

        /** Hands back an exchange delivered while not running; frees its slot. */
        void refuseStopping(MessageExchange<M> exchange);

        /** Hands back an exchange whose lane cannot be found; frees its slot. */
        void refuseUnroutable(MessageExchange<M> exchange, RuntimeException cause);

        /**
         * The envelope of an exchange bound for {@code lane}, which holds {@code staged} more than it counts; or null if
         * the exchange was refused (its slot freed).
         */
        @Nullable
        Envelope<M> envelope(MessageExchange<M> exchange, Lane<M> lane, int staged);

        /** Runs the first {@code count} of {@code lanes}, which the caller has come to own; may keep the array. */
        void run(Lane<M>[] lanes, int count);

        /** Rejects what is unsettled in a lane a force stop may have walked before a chain reached it. */
        void abandon(Lane<M> lane);
    }

    private final LaneRegistry<M> lanes;
    private final Admission<M> admission;
    private final MessageExchange<M>[] gathered;
    private final @Nullable Object[] routes = new Object[BATCH];
    private final @Nullable String[] keys = new String[BATCH];
    private final int[] hashes = new int[BATCH];
    private int gatheredCount;
    private Lane<M>[] touched;
    private int touchedCount;
    /** Lanes this publication made ready (the producer owns them), handed to workers together at its end. */
    private Lane<M>[] ready;

    private int readyCount;
    private int stagedCount;

    @SuppressWarnings("unchecked")
    LaneWriter(LaneRegistry<M> lanes, Admission<M> admission) {
        this.lanes = lanes;
        this.admission = admission;
        this.gathered = (MessageExchange<M>[]) new MessageExchange<?>[BATCH];
        this.touched = newLanes(64);
        this.ready = newLanes(64);
    }

    @Override
    public void stage(MessageExchange<M> exchange) {
        if (gatheredCount == 0) {
            admission.reserve(BATCH);
        }
        gathered[gatheredCount++] = exchange;
        if (gatheredCount == BATCH) {
            route(BATCH);
            if (stagedCount >= PUBLISH_EVERY) {
                publish();
            }
        }
    }

    @Override
    public void flush() {
        int count = gatheredCount;
        if (count > 0) {
            route(count);
            admission.unreserve(BATCH - count);
        }
        if (touchedCount > 0) {
            publish();
        }
    }

    @Override
    public void holdOpen() {
        admission.reserve(1);
    }

    @Override
    public void closeAgain() {
        admission.unreserve(1);
    }

    /** Routes the {@code count} exchanges gathered into their lanes' stages, in order. */
    private void route(int count) {
        gatheredCount = 0;
        if (!admission.running()) {
            for (int i = 0; i < count; i++) {
                MessageExchange<M> exchange = gathered[i];
                gathered[i] = null;
                admission.refuseStopping(exchange);
            }
            return;
        }
        // Three passes, each over independent loads, so the cache misses of one exchange overlap those of the next:
        // the id of each exchange, its hash (cached in the String), its lane
        for (int i = 0; i < count; i++) {
            keys[i] = keyOf(i);
        }
        for (int i = 0; i < count; i++) {
            String key = keys[i];
            hashes[i] = key == null ? 0 : key.hashCode();
        }
        for (int i = 0; i < count; i++) {
            String key = keys[i];
            if (key != null) {
                keys[i] = null;
                routes[i] = lanes.laneOf(key, hashes[i]);
            }
        }
        for (int i = 0; i < count; i++) {
            MessageExchange<M> exchange = gathered[i];
            Object route = routes[i];
            gathered[i] = null;
            routes[i] = null;
            if (route instanceof Lane<?>) {
                @SuppressWarnings("unchecked")
                Lane<M> lane = (Lane<M>) route;
                Envelope<M> envelope = admission.envelope(exchange, lane, lane.staged());
                if (envelope != null) {
                    stageIn(lane, envelope);
                }
            } else {
                admission.refuseUnroutable(exchange, (RuntimeException) route);
            }
        }
    }

    /** The aggregate id of the {@code i}th exchange gathered; or null, and why there is none in its route. */
    private @Nullable String keyOf(int i) {
        try {
            AggregateId id = Objects.requireNonNull(gathered[i].aggregateId(), "aggregateId() returned null");
            return Objects.requireNonNull(id.id(), "aggregate id");
        } catch (RuntimeException unroutable) {
            routes[i] = unroutable;
            return null;
        }
    }

    private void stageIn(Lane<M> lane, Envelope<M> envelope) {
        if (lane.stage(envelope)) {
            touch(lane);
        }
        stagedCount++;
    }

    private void touch(Lane<M> lane) {
        if (touchedCount == touched.length) {
            touched = Arrays.copyOf(touched, touchedCount * 2);
        }
        touched[touchedCount++] = lane;
    }

    /**
     * Offers every lane's stage, in the order the lanes were first touched. A keyed lane that retired meanwhile passes
     * its stage to the key's successor, which comes later in that order (it was made after this lane was staged in).
     */
    private void publish() {
        for (int i = 0; i < touchedCount; i++) {
            Lane<M> lane = touched[i];
            touched[i] = null;
            int before = lane.offerStaged();
            if (before == Lane.RETIRED) {
                Lane<M> successor = lanes.successor(lane);
                if (lane.moveStageTo(successor)) {
                    touch(successor);
                }
                continue;
            }
            if (before == 0) {
                ready(lane);
            }
            if (admission.forceStopped()) { // a force stop may have walked this lane before the chain reached it
                admission.abandon(lane);
            }
        }
        touchedCount = 0;
        stagedCount = 0;
        if (readyCount > 0) {
            int count = readyCount;
            Lane<M>[] owned = Arrays.copyOf(ready, count); // handed over: the batch keeps it
            Arrays.fill(ready, 0, count, null);
            readyCount = 0;
            admission.run(owned, count);
        }
    }

    private void ready(Lane<M> lane) {
        if (readyCount == ready.length) {
            ready = Arrays.copyOf(ready, readyCount * 2);
        }
        ready[readyCount++] = lane;
    }

    @SuppressWarnings("unchecked")
    private static <M> Lane<M>[] newLanes(int length) {
        return (Lane<M>[]) new Lane<?>[length];
    }
}
