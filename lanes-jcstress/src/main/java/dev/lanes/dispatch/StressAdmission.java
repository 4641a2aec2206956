package dev.lanes.dispatch;

import dev.lanes.lifecycle.ActivityLease;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The dispatcher's side of a {@link LaneWriter} for the lane checks: always running, never stopped, an envelope for
 * every exchange. Lanes a publication makes ready are drained at once on the producer's thread ({@link LaneOwner}),
 * where the dispatcher would hand them to a worker. Everything here is called by the producer only.
 */
final class StressAdmission implements LaneWriter.Admission<String> {
    private final LaneRegistry<String> lanes;
    private final Object key;
    private final List<Envelope<String>> made = new ArrayList<>();
    private final List<Lane<String>> stagedIn = new ArrayList<>();
    private int keyPolled;
    private int othersDrained;
    private int refused;

    /** Admission into {@code lanes}; what is drained from the lane of {@code key} is recorded apart from the others. */
    StressAdmission(LaneRegistry<String> lanes, Object key) {
        this.lanes = lanes;
        this.key = key;
    }

    @Override
    public void reserve(int slots) {}

    @Override
    public void unreserve(int slots) {}

    @Override
    public boolean running() {
        return true;
    }

    @Override
    public boolean forceStopped() {
        return false;
    }

    @Override
    public void refuseStopping(MessageExchange<String> exchange) {
        refused++;
    }

    @Override
    public void refuseUnroutable(MessageExchange<String> exchange, RuntimeException cause) {
        refused++;
    }

    @Override
    public @Nullable Envelope<String> envelope(MessageExchange<String> exchange, Lane<String> lane, int staged) {
        Envelope<String> envelope = new Envelope<>(exchange, ActivityLease.NONE, 0L);
        if (key.equals(lane.key)) {
            made.add(envelope);
            stagedIn.add(lane);
        }
        return envelope;
    }

    @Override
    public void run(Lane<String>[] ready, int count) {
        for (int i = 0; i < count; i++) {
            Lane<String> lane = ready[i];
            int polled = LaneOwner.drainFromStart(lane, lanes::complete);
            if (key.equals(lane.key)) {
                keyPolled = keyPolled == 0 ? polled : Integer.parseInt(keyPolled + "" + polled);
            } else if (polled >= 1 && polled < LaneOwner.RAN_AWAY) {
                othersDrained++; // its one envelope
            } else {
                refused++;
            }
        }
    }

    @Override
    public void abandon(Lane<String> lane) {
        throw new IllegalStateException("never force-stopped");
    }

    /** The envelopes made for the key, in the order they were staged. */
    Envelope<String> made(int index) {
        return made.get(index);
    }

    /** The lane the {@code index}th envelope for the key was staged in. */
    Lane<String> stagedIn(int index) {
        return stagedIn.get(index);
    }

    /** What the producer drained from the key's lanes, as digits (0 = nothing). */
    int keyPolled() {
        return keyPolled;
    }

    /** Lanes of other keys the producer drained, each of its one envelope. */
    int othersDrained() {
        return othersDrained;
    }

    /** Exchanges refused, and lanes of other keys that did not drain exactly their one envelope. */
    int refused() {
        return refused;
    }
}
