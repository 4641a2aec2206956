package dev.lanes.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

class BoundedRouteTest {

    @Test
    void capacityIsRoundedUpToAPowerOfTwoAndAtLeastEight() {
        assertThat(new BoundedRoute<String>(1).capacity()).isEqualTo(8);
        assertThat(new BoundedRoute<String>(100).capacity()).isEqualTo(128);
    }

    @Test
    void tryOfferFailsFastWhenFullAndTakesAgainOnceTheConsumerTookAValue() {
        BoundedRoute<Integer> route = new BoundedRoute<>(8);
        for (int i = 0; i < 8; i++) {
            assertThat(route.tryOffer(i)).isEqualTo(Sinks.EmitResult.OK);
        }
        assertThat(route.tryOffer(8)).isEqualTo(Sinks.EmitResult.FAIL_OVERFLOW);

        StepVerifier.create(route.flux(), 1)
                .expectNext(0)
                .then(() -> assertThat(route.tryOffer(8)).isEqualTo(Sinks.EmitResult.OK))
                .thenRequest(8)
                .expectNext(1, 2, 3, 4, 5, 6, 7, 8)
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void anOfferToARouteWhoseConsumerIsGoneSaysSo() {
        BoundedRoute<Integer> route = new BoundedRoute<>(8);
        route.flux().subscribe().dispose();
        assertThat(route.tryOffer(1)).isEqualTo(Sinks.EmitResult.FAIL_CANCELLED);
    }

    /**
     * Offers from many threads at once while the consumer takes: every accepted value arrives once, each producer's in
     * its order, and the route never holds more than its capacity. A queue that is not safe for concurrent producers
     * (or a lost or doubled count) fails it.
     */
    @Test
    void concurrentProducersLoseNothingKeepTheirOrderAndStayWithinTheBound() throws Exception {
        int producers = 4;
        int perProducer = 20_000;
        BoundedRoute<long[]> route = new BoundedRoute<>(64);
        ConcurrentLinkedQueue<long[]> delivered = new ConcurrentLinkedQueue<>();
        AtomicInteger taken = new AtomicInteger();
        route.flux().subscribe(value -> {
            delivered.add(value);
            taken.incrementAndGet();
        });
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger overflowed = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(producers);
        ExecutorService threads = Executors.newFixedThreadPool(producers);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                long producer = p;
                running.add(threads.submit(() -> {
                    start.await();
                    for (long i = 0; i < perProducer; ) {
                        Sinks.EmitResult result = route.tryOffer(new long[] {producer, i});
                        if (result == Sinks.EmitResult.OK) {
                            accepted.incrementAndGet();
                            i++;
                        } else {
                            assertThat(result).isEqualTo(Sinks.EmitResult.FAIL_OVERFLOW);
                            overflowed.incrementAndGet();
                            Thread.onSpinWait();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> producer : running) {
                producer.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }

        assertThat(accepted.get()).isEqualTo(producers * perProducer);
        assertThat(taken.get()).isEqualTo(producers * perProducer);
        long[] next = new long[producers];
        for (long[] value : delivered) {
            assertThat(value[1]).as("producer %d's order", value[0]).isEqualTo(next[(int) value[0]]);
            next[(int) value[0]]++;
        }
        // all taken: the whole capacity is free again
        for (int i = 0; i < route.capacity(); i++) {
            assertThat(route.tryOffer(new long[] {-1, i})).isEqualTo(Sinks.EmitResult.OK);
        }
    }

    @Test
    void aRouteFullBeforeItsConsumerArrivesSaysOverflowAndDeliversWhatItHolds() {
        BoundedRoute<Integer> route = new BoundedRoute<>(8);
        for (int i = 0; i < 8; i++) {
            assertThat(route.tryOffer(i)).isEqualTo(Sinks.EmitResult.OK);
        }
        assertThat(route.tryOffer(8)).isEqualTo(Sinks.EmitResult.FAIL_OVERFLOW);

        StepVerifier.create(route.flux())
                .expectNext(0, 1, 2, 3, 4, 5, 6, 7)
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }
}
