package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * BlockHound over the dispatch path: lanes run on Reactor's non-blocking workers, and any blocking call the engine
 * makes there is recorded. Runs in its own JVM (tag {@code blockhound}), because BlockHound stays installed.
 */
@Tag("blockhound")
class NonBlockingLanesTest {
    private static final List<String> violations = new CopyOnWriteArrayList<>();

    private final DispatcherFixture fixture = new DispatcherFixture("blockhound", 2);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @BeforeAll
    static void installBlockHound() {
        // install(...) loads Reactor's integration, which marks scheduler workers as non-blocking threads
        BlockHound.install(builder -> builder
                // the test's own log output (parking logs a warning); a production logger is the user's choice
                .allowBlockingCallsInside("org.slf4j.simple.SimpleLogger", "write")
                .blockingMethodCallback(method ->
                        violations.add(method + " on " + Thread.currentThread().getName())));
    }

    @BeforeEach
    void clearViolations() {
        violations.clear();
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void theEngineNeverBlocksALaneThreadOnAnyPath() {
        Sinks.Empty<Void> release = Sinks.empty();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                    String message = exchange.message();
                    if (message.startsWith("stuck")) {
                        return release.asMono();
                    }
                    if (message.contains("#7")) {
                        return Mono.error(new IllegalStateException("always fails"));
                    }
                    if (message.contains("#3")) {
                        return Mono.delay(Duration.ofMillis(1)).then();
                    }
                    if (message.contains("#5")) {
                        return Mono.<Void>empty().subscribeOn(Schedulers.parallel());
                    }
                    return Mono.empty();
                })
                .settings(LaneSettings.DEFAULT
                        .withStrategy(LaneStrategy.KEYED)
                        .withBounds(8, 10_000)
                        .withOverflow(LaneSettings.Overflow.REJECT)
                        .withRetryPolicy(RetryPolicy.DEFAULT
                                .withMaxRetries(2)
                                .withBackoff(Duration.ofMillis(1), Duration.ofMillis(2)))));

        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            sent.add(TestExchange.of("id-" + (i % 50), i % 10));
        }
        for (int i = 0; i < 20; i++) {
            sent.add(new TestExchange("stuck", "stuck#" + i));
        }
        sent.forEach(fixture::emit);

        await().atMost(PROMPTLY)
                .until(() -> sent.stream()
                        .filter(e -> !e.message().startsWith("stuck"))
                        .allMatch(e -> e.settled.isDone()));
        await().atMost(PROMPTLY)
                .until(() -> sent.stream()
                                .filter(e -> e.message().startsWith("stuck"))
                                .filter(e -> e.settled.isDone())
                                .count()
                        == 12);
        dispatcher.stats();
        release.tryEmitEmpty();
        dispatcher.stopGracefully().block(PROMPTLY);

        assertThat(fixture.parkingLot.size()).isPositive();
        assertThat(violations).isEmpty();
        assertThat(logs.lines(Level.WARN))
                .as("one warning per parked message, written from the lane threads")
                .hasSize(fixture.parkingLot.size())
                .allSatisfy(line -> assertThat(line.message())
                        .startsWith("Parked a message for sales.order/id-")
                        .endsWith("java.lang.IllegalStateException: always fails"));
    }

    @Test
    void aBlockingHandlerIsCaught() {
        fixture.started(fixture.builder(exchange -> {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Mono.empty();
        }));
        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);

        await().atMost(PROMPTLY).until(exchange::acknowledged);
        assertThat(violations)
                .anySatisfy(violation -> assertThat(violation).contains("sleep").contains("blockhound-order-"));
    }
}
