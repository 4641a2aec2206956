package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/** The three points of the seed that may be relied on, for both lane strategies. */
class SeedContractTest {
    private final DispatcherFixture fixture = new DispatcherFixture("seed", 4);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void withinOneGroupExchangesEnterOneAtATimeInArrivalOrderEvenWhenCompletingElsewhere() {
        int parallelism = 4;
        Map<Integer, AtomicInteger> activePerGroup = new ConcurrentHashMap<>();
        AtomicInteger overlaps = new AtomicInteger();
        Map<Integer, List<String>> seenPerGroup = new ConcurrentHashMap<>();
        AtomicInteger counter = new AtomicInteger();
        fixture.started(fixture.builder(exchange -> {
                    int group = MessageParallelism.toGroupKey(exchange.aggregateId(), parallelism);
                    AtomicInteger active = activePerGroup.computeIfAbsent(group, g -> new AtomicInteger());
                    if (active.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    seenPerGroup
                            .computeIfAbsent(group, g -> Collections.synchronizedList(new ArrayList<>()))
                            .add(exchange.message());
                    Mono<Void> end = Mono.fromRunnable(active::decrementAndGet);
                    // every other handler completes on a foreign thread, after a hop
                    return counter.incrementAndGet() % 2 == 0
                            ? end.subscribeOn(Schedulers.parallel()).then()
                            : end.then();
                })
                .settings(LaneSettings.DEFAULT.withParallelism(parallelism)));

        List<TestExchange> sent = new ArrayList<>();
        for (int sequence = 0; sequence < 200; sequence++) {
            for (int id = 0; id < 10; id++) {
                TestExchange exchange = TestExchange.of("order-" + id, sequence);
                sent.add(exchange);
                fixture.emit(exchange);
            }
        }

        await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::acknowledged));
        assertThat(overlaps).hasValue(0);
        seenPerGroup.forEach((group, seen) -> {
            List<String> expected = sent.stream()
                    .filter(e -> MessageParallelism.toGroupKey(e.aggregateId(), parallelism) == group)
                    .map(TestExchange::message)
                    .toList();
            assertThat(seen).as("group %d", group).containsExactlyElementsOf(expected);
        });
    }

    @Test
    void theSameIdAlwaysLandsInTheSameGroup() {
        int parallelism = 8;
        Map<String, Integer> groupOfId = new ConcurrentHashMap<>();
        AtomicInteger mismatches = new AtomicInteger();
        Map<String, Thread> unused = new ConcurrentHashMap<>();
        fixture.started(fixture.builder(exchange -> {
                    int group = MessageParallelism.toGroupKey(exchange.aggregateId(), parallelism);
                    Integer previous =
                            groupOfId.putIfAbsent(exchange.aggregateId().id(), group);
                    if (previous != null && previous != group) {
                        mismatches.incrementAndGet();
                    }
                    unused.put(exchange.aggregateId().id(), Thread.currentThread());
                    return Mono.empty();
                })
                .settings(LaneSettings.DEFAULT.withParallelism(parallelism)));
        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            TestExchange exchange = TestExchange.of("id-" + (i % 37), i);
            sent.add(exchange);
            fixture.emit(exchange);
        }
        await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::acknowledged));
        assertThat(mismatches).hasValue(0);
        assertThat(groupOfId).hasSize(37);
    }

    @Test
    void differentGroupsRunConcurrently() {
        Sinks.Empty<Void> secondGroupRan = Sinks.empty();
        fixture.started(fixture.builder(exchange -> exchange.aggregateId().id().equals("first")
                        ? secondGroupRan.asMono()
                        : Mono.fromRunnable(secondGroupRan::tryEmitEmpty))
                .settings(LaneSettings.DEFAULT.withParallelism(64)));
        assertThat(MessageParallelism.toGroupKey(TestExchange.of("first", 0).aggregateId(), 64))
                .isNotEqualTo(MessageParallelism.toGroupKey(
                        TestExchange.of("second", 0).aggregateId(), 64));

        TestExchange first = TestExchange.of("first", 0);
        TestExchange second = TestExchange.of("second", 0);
        fixture.emit(first);
        fixture.emit(second);

        // the first group's handler ends only once the second group's handler ran: serial groups would never finish
        await().atMost(PROMPTLY).until(() -> first.acknowledged() && second.acknowledged());
    }

    @Test
    void handlersRunOnTheNamedAggregatesSchedulerWithMeaningfulThreadNames() {
        Map<String, String> threadOfMessage = new ConcurrentHashMap<>();
        fixture.started(fixture.builder(exchange -> {
            threadOfMessage.put(exchange.message(), Thread.currentThread().getName());
            return Mono.empty();
        }));
        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            TestExchange exchange = TestExchange.of("id-" + i, i);
            sent.add(exchange);
            fixture.emit(exchange);
        }
        await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::acknowledged));
        assertThat(threadOfMessage.values()).allMatch(name -> name.startsWith("seed-order-"));
        assertThat(fixture.handedOut)
                .as("one scheduler for the named aggregate")
                .hasSize(1);
    }
}
