package dev.lanes.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class BoundedRouteTest {

    @Test
    void capacityIsRoundedUpToAPowerOfTwoAndAtLeastEight() {
        assertThat(new BoundedRoute<String>(1).capacity()).isEqualTo(8);
        assertThat(new BoundedRoute<String>(100).capacity()).isEqualTo(128);
    }

    @Test
    void tryOfferFailsFastWhenFull() {
        BoundedRoute<Integer> route = new BoundedRoute<>(8);
        for (int i = 0; i < 8; i++) {
            assertThat(route.tryOffer(i)).isEqualTo(Sinks.EmitResult.OK);
        }
        assertThat(route.tryOffer(8)).isEqualTo(Sinks.EmitResult.FAIL_OVERFLOW);
    }

    @Test
    void aWaitingOfferCompletesOnceTheConsumerTakesAValue() {
        BoundedRoute<Integer> route = new BoundedRoute<>(8);
        for (int i = 0; i < 8; i++) {
            route.tryOffer(i);
        }
        StepVerifier.create(route.offer(8))
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(50))
                .then(() -> route.flux().take(1).subscribe())
                .verifyComplete();
    }

    @org.junit.jupiter.api.RepeatedTest(5)
    void manyWaitingProducersDeliverEverythingOnceInProducerOrderToASlowConsumer() {
        BoundedRoute<int[]> route = new BoundedRoute<>(8);
        Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
        AtomicInteger received = new AtomicInteger();
        route.flux().publishOn(Schedulers.single(), 4).subscribe(value -> {
            seen.computeIfAbsent(value[0], p -> new ArrayList<>()).add(value[1]);
            received.incrementAndGet();
        });
        int producers = 8;
        int each = 2_000;
        Flux.range(0, producers)
                .flatMap(p -> Flux.range(0, each)
                        .concatMap(i -> route.offer(new int[] {p, i}))
                        .subscribeOn(Schedulers.parallel()))
                .blockLast(Duration.ofSeconds(20));

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> received.get() == producers * each);
        for (int p = 0; p < producers; p++) {
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < each; i++) {
                expected.add(i);
            }
            assertThat(seen.get(p)).as("producer %d", p).isEqualTo(expected);
        }
    }

    @Test
    void anOfferToARouteWhoseConsumerIsGoneFails() {
        BoundedRoute<Integer> route = new BoundedRoute<>(8);
        route.flux().subscribe().dispose();
        StepVerifier.create(route.offer(1))
                .expectErrorMessage("The route's consumer is gone (FAIL_CANCELLED)")
                .verify(Duration.ofSeconds(5));
    }
}
