package dev.lanes.cli.engine;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageParallelism;
import java.util.BitSet;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The bench's traffic, decided before the run from a seed: per aggregate type, {@code ids} ids shaped like real ones
 * (UUID strings, so they hash like production ids) and the order of messages over them. Message {@code i} of the run
 * goes to type {@code i % types}.
 *
 * <p>Hot-key: id 0 of each type gets {@code hotShare} of its type's messages, and every {@code slowEvery}-th of them is
 * slow. Stuck-lane: the first message of type 0 goes to its id 0 and never completes; the messages routed to its lane
 * after it (that id under KEYED, its hash group under HASHED) are the stuck lane.
 *
 * <p>{@link #message} is called serially per type (one source per type, or the one paced producer).
 */
final class Traffic {
    final int types;
    final int ids;
    final int messages;
    /** Messages in the stuck lane; 0 unless a lane is stuck. */
    final long stuckRouted;

    private final AggregateId[][] aggregateIds;
    private final int[][] order;
    private final int[][] sequences;
    private final int[] hotCounts;
    private final BitSet stuckLane = new BitSet();
    private final boolean hotKey;
    private final int slowEvery;

    private Traffic(EngineRun.Settings settings) {
        this.types = settings.types();
        this.ids = settings.aggregates();
        this.messages = settings.messages();
        this.hotKey = settings.scenario() == Scenario.HOT_KEY;
        this.slowEvery = settings.slowEvery();
        this.aggregateIds = new AggregateId[types][];
        this.order = new int[types][];
        this.sequences = new int[types][ids];
        this.hotCounts = new int[types];
        for (int t = 0; t < types; t++) {
            SplittableRandom random = new SplittableRandom(settings.seed() * 31 + t);
            NamedAggregate type = type(t, types);
            aggregateIds[t] = new AggregateId[ids];
            for (int i = 0; i < ids; i++) {
                aggregateIds[t][i] = AggregateId.of(type, new UUID(random.nextLong(), random.nextLong()).toString());
            }
            order[t] = new int[count(t)];
            for (int j = 0; j < order[t].length; j++) {
                order[t][j] = pick(random, settings.hotShare());
            }
        }
        this.stuckRouted = settings.scenario() == Scenario.STUCK_LANE ? markStuckLane(settings) : 0;
    }

    static Traffic generate(EngineRun.Settings settings) {
        return new Traffic(settings);
    }

    /** {@code bench.order} for one type; {@code bench.type01}... for several. */
    static NamedAggregate type(int index, int types) {
        return NamedAggregate.of("bench", types == 1 ? "order" : String.format(Locale.ROOT, "type%02d", index + 1));
    }

    /** Messages of type {@code type}: message {@code i} of the run goes to type {@code i % types}. */
    int count(int type) {
        return messages / types + (type < messages % types ? 1 : 0);
    }

    AggregateId stuckId() {
        return aggregateIds[0][0];
    }

    AggregateId hotId(int type) {
        return aggregateIds[type][0];
    }

    /** The {@code index}-th message of {@code type}; serially per type. */
    BenchMessage message(int type, int index, long createdAt, EngineProbe probe) {
        int id = order[type][index];
        boolean hot = hotKey && id == 0;
        boolean slow = hot && ++hotCounts[type] % slowEvery == 0;
        boolean stuck = type == 0 && stuckLane.get(index);
        return new BenchMessage(
                aggregateIds[type][id],
                type,
                id,
                sequences[type][id]++,
                createdAt,
                hot,
                slow,
                stuck,
                stuck && index == 0,
                probe);
    }

    private int pick(SplittableRandom random, double hotShare) {
        if (hotKey) {
            return ids == 1 || random.nextDouble() < hotShare ? 0 : 1 + random.nextInt(ids - 1);
        }
        return random.nextInt(ids);
    }

    private long markStuckLane(EngineRun.Settings settings) {
        order[0][0] = 0; // the stuck id's first message is the first of its type: it never completes
        Object stuckKey = laneKey(settings, 0);
        for (int j = 0; j < order[0].length; j++) {
            if (laneKey(settings, order[0][j]).equals(stuckKey)) {
                stuckLane.set(j);
            }
        }
        return stuckLane.cardinality();
    }

    private Object laneKey(EngineRun.Settings settings, int id) {
        return settings.strategy() == LaneStrategy.KEYED
                ? aggregateIds[0][id].id()
                : MessageParallelism.toGroupKey(aggregateIds[0][id], settings.parallelism());
    }
}
