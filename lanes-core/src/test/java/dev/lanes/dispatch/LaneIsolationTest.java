package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** A stuck or slow lane holds up itself only; under KEYED even colliding ids do not wait for each other. */
class LaneIsolationTest {
    private final DispatcherFixture fixture = new DispatcherFixture("isolation", 2);

    @AfterEach
    void close() {
        fixture.close();
    }

    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void aStuckGroupStallsOnlyItselfWhileTenThousandOthersAreHandled(LaneStrategy strategy) {
        int parallelism = 64;
        String stuckId = "stuck";
        int stuckGroup =
                MessageParallelism.toGroupKey(TestExchange.of(stuckId, 0).aggregateId(), parallelism);
        fixture.started(
                fixture.builder(exchange -> exchange.aggregateId().id().equals(stuckId) ? Mono.never() : Mono.empty())
                        .settings(LaneSettings.DEFAULT
                                .withStrategy(strategy)
                                .withParallelism(parallelism)
                                .withBounds(1024, 16_384)));

        List<TestExchange> stuck = new ArrayList<>();
        List<TestExchange> others = new ArrayList<>();
        int sequence = 0;
        for (int i = 0; i < 10_000; i++) {
            if (i % 20 == 0) {
                TestExchange blocked = TestExchange.of(stuckId, sequence++);
                stuck.add(blocked);
                fixture.emit(blocked);
            }
            String id = "other-" + i;
            if (MessageParallelism.toGroupKey(TestExchange.of(id, 0).aggregateId(), parallelism) == stuckGroup) {
                id = id + "-x";
                if (MessageParallelism.toGroupKey(TestExchange.of(id, 0).aggregateId(), parallelism) == stuckGroup) {
                    id = id + "y";
                }
            }
            TestExchange other = TestExchange.of(id, i);
            others.add(other);
            fixture.emit(other);
        }

        await().atMost(PROMPTLY).until(() -> others.stream().allMatch(TestExchange::acknowledged));
        assertThat(others).allMatch(e -> e.settlements.get() == 1);
        assertThat(stuck).noneMatch(e -> e.settled.isDone());
    }

    @Test
    void underHashedAnIdWaitsForASlowIdThatSharesItsGroup() {
        Sinks.Empty<Void> releaseSlow = Sinks.empty();
        Set<String> invoked = ConcurrentHashMap.newKeySet();
        fixture.started(fixture.builder(slowBBBB(releaseSlow, invoked))
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.HASHED).withParallelism(64)));

        TestExchange slow = TestExchange.of("BBBB", 0);
        TestExchange colliding = TestExchange.of("AaAa", 0);
        TestExchange control = TestExchange.of("control", 0);
        fixture.emit(slow);
        fixture.emit(colliding);
        fixture.emit(control);

        await().atMost(PROMPTLY).until(() -> control.acknowledged() && invoked.contains("BBBB"));
        assertThat(invoked).doesNotContain("AaAa");
        assertThat(colliding.settled).isNotDone();

        releaseSlow.tryEmitEmpty();
        await().atMost(PROMPTLY).until(() -> colliding.acknowledged() && slow.acknowledged());
    }

    @Test
    void underKeyedAnIdNeverWaitsForAnotherIdEvenWhenTheirHashesCollide() {
        Sinks.Empty<Void> releaseSlow = Sinks.empty();
        Set<String> invoked = ConcurrentHashMap.newKeySet();
        fixture.started(fixture.builder(slowBBBB(releaseSlow, invoked))
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED)));

        TestExchange slow = TestExchange.of("BBBB", 0);
        TestExchange colliding = TestExchange.of("AaAa", 0);
        fixture.emit(slow);
        fixture.emit(colliding);

        await().atMost(PROMPTLY).until(colliding::acknowledged);
        assertThat(slow.settled).isNotDone();
        releaseSlow.tryEmitEmpty();
        await().atMost(PROMPTLY).until(slow::acknowledged);
    }

    private static ExchangeHandler<String> slowBBBB(Sinks.Empty<Void> release, Set<String> invoked) {
        return exchange -> {
            invoked.add(exchange.aggregateId().id());
            return exchange.aggregateId().id().equals("BBBB") ? release.asMono() : Mono.empty();
        };
    }
}
