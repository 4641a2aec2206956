package dev.lanes.command.lane;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.modeling.AggregateState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StateCacheTest {
    private static final NamedAggregate ACCOUNT = NamedAggregate.of("bank", "account");

    private static AggregateState<Integer> state(String id, int version) {
        return new AggregateState<>(AggregateId.of(ACCOUNT, id), version, version);
    }

    @Test
    void stripesMustBeAPowerOfTwo() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new StateCache<Integer>(10, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3");
    }

    @Test
    void stripesArePowersOfTwoUpToFourPerCoreAndNeverMoreThanTheCapacity() {
        assertThat(StateCache.stripesFor(10_000, 2)).isEqualTo(8);
        assertThat(StateCache.stripesFor(10_000, 16)).isEqualTo(64);
        assertThat(StateCache.stripesFor(3, 16)).isEqualTo(4);
        assertThat(StateCache.stripesFor(1, 16)).isEqualTo(1);
        assertThat(StateCache.stripesFor(0, 16)).isEqualTo(1);
        assertThat(new StateCache<Integer>(10_000).stripes())
                .isEqualTo(StateCache.stripesFor(10_000, Runtime.getRuntime().availableProcessors()));
    }

    @Test
    void aCapacityOfZeroKeepsNothing() {
        StateCache<Integer> cache = new StateCache<>(0);
        cache.put(state("a", 1));
        assertThat(cache.get(AggregateId.of(ACCOUNT, "a"))).isNull();
    }

    @Test
    void theLeastRecentlyUsedStateOfAStripeGoesFirstAndEvictRemoves() {
        StateCache<Integer> cache = new StateCache<>(2, 2);
        StateCache<Integer> single = new StateCache<>(1, 1);
        single.put(state("a", 1));
        single.put(state("b", 1));
        assertThat(single.get(AggregateId.of(ACCOUNT, "a"))).isNull();
        assertThat(single.get(AggregateId.of(ACCOUNT, "b"))).isEqualTo(state("b", 1));

        cache.put(state("a", 1));
        cache.put(state("a", 2));
        assertThat(cache.get(AggregateId.of(ACCOUNT, "a"))).isEqualTo(state("a", 2));
        cache.evict(AggregateId.of(ACCOUNT, "a"));
        assertThat(cache.get(AggregateId.of(ACCOUNT, "a"))).isNull();
    }

    @Test
    void holdsAtMostItsCapacityInAll() {
        StateCache<Integer> cache = new StateCache<>(100, 8);
        for (int i = 0; i < 10_000; i++) {
            cache.put(state("id-" + i, 1));
        }
        int held = 0;
        for (int i = 0; i < 10_000; i++) {
            if (cache.get(AggregateId.of(ACCOUNT, "id-" + i)) != null) {
                held++;
            }
        }
        assertThat(held).isBetween(1, 100 + cache.stripes());
    }

    /**
     * Threads put and read their own ids at once, all in one stripe: each reads back what it put (an access-ordered
     * map without its monitor loses or corrupts entries).
     */
    @Test
    void concurrentLanesReadBackTheirOwnStates() throws Exception {
        int threads = 4;
        int ids = 2_000;
        StateCache<Integer> cache = new StateCache<>(threads * ids * 2, 1);
        assertThat(cache.stripes()).isEqualTo(1);
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String prefix = "t" + t + "-";
                running.add(pool.submit(() -> {
                    start.await();
                    for (int version = 1; version <= 20; version++) {
                        for (int i = 0; i < ids; i++) {
                            cache.put(state(prefix + i, version));
                            assertThat(cache.get(AggregateId.of(ACCOUNT, prefix + i)))
                                    .isEqualTo(state(prefix + i, version));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> thread : running) {
                thread.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
