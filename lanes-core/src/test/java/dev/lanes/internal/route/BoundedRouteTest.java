package dev.lanes.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
}
