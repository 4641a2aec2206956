package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Where a dispatcher's lanes live, by lane key. The producer side alone creates lanes; owners retire keyed lanes.
 *
 * <p>{@link LaneStrategy#HASHED}: {@code parallelism} lanes, created on first use and kept (their number is bounded by
 * the setting). {@link LaneStrategy#KEYED}: a lane per aggregate id that holds work, retired by its owner when it
 * empties, so memory follows what is queued, not how many ids were ever seen ({@link KeyedLanes}).
 */
abstract class LaneRegistry<M> {

    static <M> LaneRegistry<M> of(LaneSettings settings, Lane.LaneRunner<M> runner) {
        return settings.strategy() == LaneStrategy.KEYED
                ? new KeyedLanes<>(runner)
                : new Hashed<>(settings.parallelism(), runner);
    }

    /** Producer only: the lane of the aggregate id {@code key}, whose {@code hashCode()} is {@code hash}. */
    abstract Lane<M> laneOf(String key, int hash);

    /**
     * Producer only: the lane that takes over from {@code retired} for its key: the one the producer made after {@code
     * retired} left the registry, or else a fresh one, replacing it.
     */
    abstract Lane<M> successor(Lane<M> retired);

    /**
     * Owner only: subtracts what the owner finished ({@link Lane#complete}) and returns the envelopes still pending; at
     * 0 the owner lets go, and a keyed lane has retired and left the registry.
     */
    abstract int complete(Lane<M> lane);

    abstract void forEach(Consumer<Lane<M>> action);

    private static final class Hashed<M> extends LaneRegistry<M> {
        private final int parallelism;
        /** {@code parallelism - 1} if it is a power of two (then {@code hash & mask == floorMod(hash, parallelism)}). */
        private final int mask;

        private final Lane.LaneRunner<M> runner;
        private final AtomicReferenceArray<@Nullable Lane<M>> lanes;

        Hashed(int parallelism, Lane.LaneRunner<M> runner) {
            this.parallelism = parallelism;
            this.mask = Integer.bitCount(parallelism) == 1 ? parallelism - 1 : -1;
            this.runner = runner;
            this.lanes = new AtomicReferenceArray<>(parallelism);
        }

        @Override
        Lane<M> laneOf(String key, int hash) {
            // MessageParallelism.toGroupKey, unchecked; a mask where it equals floorMod
            int index = mask >= 0 ? hash & mask : Math.floorMod(hash, parallelism);
            Lane<M> lane = lanes.get(index);
            if (lane == null) {
                lane = new Lane<>(index, runner);
                lanes.set(index, lane);
            }
            return lane;
        }

        @Override
        Lane<M> successor(Lane<M> retired) {
            throw new IllegalStateException("hashed lanes never retire: " + retired.key);
        }

        @Override
        int complete(Lane<M> lane) {
            return lane.complete();
        }

        @Override
        void forEach(Consumer<Lane<M>> action) {
            for (int i = 0; i < parallelism; i++) {
                Lane<M> lane = lanes.get(i);
                if (lane != null) {
                    action.accept(lane);
                }
            }
        }
    }
}
