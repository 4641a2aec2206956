package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import java.util.SplittableRandom;
import java.util.UUID;
import reactor.core.publisher.Flux;

/**
 * Deterministic traffic: aggregate ids shaped like real ones (random UUID strings, so their hash codes spread as in
 * production rather than as consecutive strings would) and a seeded uniform order over them.
 */
final class Feed {
    static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    private Feed() {}

    static AggregateId[] ids(NamedAggregate type, int count, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        AggregateId[] ids = new AggregateId[count];
        for (int i = 0; i < count; i++) {
            ids[i] = AggregateId.of(type, new UUID(random.nextLong(), random.nextLong()).toString());
        }
        return ids;
    }

    /** {@code messages} indexes into {@code [0, ids)}, uniform. */
    static int[] uniformOrder(int ids, int messages, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] order = new int[messages];
        for (int i = 0; i < messages; i++) {
            order[i] = random.nextInt(ids);
        }
        return order;
    }

    /**
     * A cold source of one exchange per entry of {@code order}; it emits only what is requested (Flux.range), so each
     * variant pulls at its own pace. The exchanges are created as they are emitted, in the same way for every variant.
     */
    static Flux<BenchExchange> flux(AggregateId[] ids, int[] order, BenchExchange.Settlement settlement) {
        return Flux.range(0, order.length).map(i -> new BenchExchange(ids[order[i]], i, settlement));
    }
}
