package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static dev.lanes.dispatch.FailureIsolationTest.fixedScheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.AggregateDispatcher.State;
import dev.lanes.dispatch.FailureIsolationTest.RecordingContext;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.slf4j.event.Level;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Defects of the lane engine found from outside (issue 11), one test each, written against the public API only so they
 * hold for any implementation of the engine.
 */
class EngineDefectsTest {
    private static final String CLEANUP_THREAD = "engine-defects-cleanup";

    private final DispatcherFixture fixture = new DispatcherFixture("defects", 2);
    private final Scheduler cleanup = Schedulers.newSingle(CLEANUP_THREAD);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @AfterEach
    void close() {
        fixture.close();
        cleanup.dispose();
    }

    @Nested
    class AnExchangeWithoutAUsableAggregateId {
        @Test
        void whoseAggregateIdThrowsIsRefusedToItsSourceAndTheDispatcherGoesOn() {
            IllegalStateException lookupFailed = new IllegalStateException("aggregate id lookup failed");
            BrokenIdExchange broken = new BrokenIdExchange(() -> {
                throw lookupFailed;
            });

            ExchangeRejectedException refusal = refusedAndTheDispatcherGoesOn(broken);

            assertThat(refusal)
                    .satisfiesAnyOf(
                            r -> assertThat(r).hasMessageContaining(lookupFailed.getMessage()),
                            r -> assertThat(r).hasRootCause(lookupFailed));
        }

        @Test
        void whoseAggregateIdIsNullIsRefusedToItsSourceAndTheDispatcherGoesOn() {
            BrokenIdExchange broken = new BrokenIdExchange(() -> null);

            ExchangeRejectedException refusal = refusedAndTheDispatcherGoesOn(broken);

            assertThat(refusal).hasMessageContaining("null");
        }

        /** Emits the broken exchange then a valid one; both settled, no lease left open, a graceful stop completes. */
        private ExchangeRejectedException refusedAndTheDispatcherGoesOn(BrokenIdExchange broken) {
            RecordingContext context = new RecordingContext();
            AggregateDispatcher<String> dispatcher =
                    fixture.started(fixture.builder(exchange -> Mono.empty()).build(), context);

            assertThatCode(() -> fixture.emit(broken))
                    .as("the source delivering the broken exchange")
                    .doesNotThrowAnyException();
            TestExchange valid = TestExchange.of("o-1", 0);
            fixture.emit(valid);

            await().atMost(PROMPTLY).until(() -> broken.settlements.get() > 0 && valid.settled.isDone());
            assertThat(valid.acknowledged()).isTrue();
            assertThat(broken.settlements).hasValue(1);
            assertThat(dispatcher.stats().rejected()).isEqualTo(1);
            StepVerifier.create(dispatcher.stopGracefully()).expectComplete().verify(PROMPTLY);
            assertThat(context.open).as("leases still open").hasValue(0);
            assertThat(dispatcher.stats().queued()).isZero();

            Throwable rejection = broken.rejection.get();
            assertThat(rejection)
                    .isInstanceOf(ExchangeRejectedException.class)
                    .hasMessageContaining(dispatcher.name())
                    .hasMessageContaining("aggregateId");
            return (ExchangeRejectedException) rejection;
        }
    }

    @Nested
    class ACleanupSchedulerThatRefusesWork {
        @ParameterizedTest(name = "{0}")
        @MethodSource("dev.lanes.dispatch.EngineDefectsTest#refusingSchedulers")
        void doesNotMakeQuiesceThrowAndTheDispatcherStillStops(String description, Scheduler refusing) {
            AggregateDispatcher<String> dispatcher =
                    fixture.started(fixture.builder(exchange -> Mono.empty()).cleanup(refusing));

            assertThatCode(dispatcher::quiesce).doesNotThrowAnyException();

            await().atMost(PROMPTLY).until(() -> dispatcher.state() == State.STOPPED);
            StepVerifier.create(dispatcher.stopGracefully().onErrorComplete())
                    .expectComplete()
                    .verify(PROMPTLY);
            assertTheRefusalIsLogged();
        }

        @ParameterizedTest(name = "{0}")
        @MethodSource("dev.lanes.dispatch.EngineDefectsTest#refusingSchedulers")
        void doesNotMakeForceStopThrowAndEverythingAdmittedIsStillRejected(String description, Scheduler refusing) {
            AggregateDispatcher<String> dispatcher =
                    fixture.started(fixture.builder(exchange -> Mono.never()).cleanup(refusing));
            TestExchange running = TestExchange.of("o-1", 0);
            TestExchange queued = TestExchange.of("o-1", 1);
            fixture.emit(running);
            fixture.emit(queued);
            await().atMost(PROMPTLY).until(() -> dispatcher.stats().inFlight() == 1);

            assertThatCode(dispatcher::forceStop).doesNotThrowAnyException();

            assertThat(dispatcher.state()).isEqualTo(State.STOPPED);
            assertThat(running.rejection()).isInstanceOf(ExchangeRejectedException.class);
            assertThat(queued.rejection()).isInstanceOf(ExchangeRejectedException.class);
            assertThat(running.settlements.get() + queued.settlements.get()).isEqualTo(2);
            StepVerifier.create(dispatcher.stopGracefully().onErrorComplete())
                    .expectComplete()
                    .verify(PROMPTLY);
            assertTheRefusalIsLogged();
        }

        private void assertTheRefusalIsLogged() {
            assertThat(logs.lines(Level.WARN))
                    .as("the refusal is a warning, and the cancellation runs inline")
                    .anySatisfy(line -> assertThat(line.message())
                            .contains("cleanup scheduler refused a cancellation")
                            .endsWith("cancelling inline"));
        }
    }

    static Stream<Arguments> refusingSchedulers() {
        Scheduler disposed = Schedulers.newSingle("disposed-cleanup");
        disposed.dispose();
        Scheduler refusingExecutor = Schedulers.fromExecutor(task -> {
            throw new RejectedExecutionException("cleanup executor refuses every task");
        });
        return Stream.of(
                Arguments.of("a disposed scheduler", disposed),
                Arguments.of("an executor that refuses every task", refusingExecutor));
    }

    @Nested
    class ASourceSubscriptionThatArrivesAfterAStop {
        private final LateSubscriptionSource late = new LateSubscriptionSource();

        @Test
        void isCancelledOnTheCleanupSchedulerAfterQuiesce() {
            AggregateDispatcher<String> dispatcher = startedOnTheLateSource();

            dispatcher.quiesce();
            late.deliverSubscription();

            assertCancelledOnTheCleanupScheduler();
        }

        @Test
        void isCancelledOnTheCleanupSchedulerAfterForceStop() {
            AggregateDispatcher<String> dispatcher = startedOnTheLateSource();

            dispatcher.forceStop();
            late.deliverSubscription();

            assertCancelledOnTheCleanupScheduler();
        }

        private AggregateDispatcher<String> startedOnTheLateSource() {
            AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> Mono.empty())
                    .source(Flux.from(late))
                    .cleanup(cleanup));
            assertThat(late.subscriber).as("the dispatcher subscribed").doesNotHaveNullValue();
            return dispatcher;
        }

        private void assertCancelledOnTheCleanupScheduler() {
            await().atMost(PROMPTLY).until(late.cancelledOn::isDone);
            assertThat(late.cancelledOn.join()).startsWith(CLEANUP_THREAD);
        }
    }

    @Nested
    class AForceStopDuringPrepare {
        @Test
        void failsThePrepareNamingTheDispatcherAndItsStateAndLeavesTheSourceUnsubscribed() {
            AtomicReference<@Nullable AggregateDispatcher<String>> self = new AtomicReference<>();
            AggregateSchedulerSupplier forceStopsOnUse = new AggregateSchedulerSupplier() {
                @Override
                public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
                    AggregateDispatcher<String> dispatcher = self.get();
                    if (dispatcher != null) {
                        dispatcher.forceStop();
                    }
                    return fixture.schedulers.getOrInitialize(namedAggregate);
                }

                @Override
                public void forceStop() {
                    fixture.schedulers.forceStop();
                }

                @Override
                public Mono<Void> stopGracefully() {
                    return fixture.schedulers.stopGracefully();
                }
            };
            AggregateDispatcher<String> dispatcher = fixture.track(fixture.builder(exchange -> Mono.empty())
                    .schedulers(forceStopsOnUse)
                    .build());
            self.set(dispatcher);

            StepVerifier.create(dispatcher.prepare(RuntimeContext.standalone()))
                    .expectErrorSatisfies(error -> assertThat(error)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining(dispatcher.name())
                            .hasMessageContaining(State.STOPPED.name()))
                    .verify(PROMPTLY);

            assertThat(dispatcher.state()).isEqualTo(State.STOPPED);
            await().atMost(PROMPTLY).until(() -> fixture.source.currentSubscriberCount() == 0);
        }
    }

    @Nested
    class ASourceWhoseSubscribeThrows {
        @Test
        void failsThePrepareAndIsTheFaultAGracefulStopErrorsWith() {
            IllegalStateException unreachable = new IllegalStateException("broker unreachable");
            Publisher<MessageExchange<String>> throwing = subscriber -> {
                throw unreachable;
            };
            AggregateDispatcher<String> dispatcher = fixture.track(fixture.builder(exchange -> Mono.empty())
                    .source(Flux.from(throwing))
                    .build());

            StepVerifier.create(dispatcher.prepare(new RecordingContext()))
                    .expectErrorSatisfies(error -> assertIsOrIsCausedBy(error, unreachable))
                    .verify(PROMPTLY);
            StepVerifier.create(dispatcher.stopGracefully())
                    .expectErrorSatisfies(error -> assertIsOrIsCausedBy(error, unreachable))
                    .verify(PROMPTLY);
            assertThat(dispatcher.state()).isEqualTo(State.STOPPED);
            assertThat(logs.lines(Level.ERROR))
                    .as("the fault is logged once, naming the dispatcher, with its cause")
                    .singleElement()
                    .satisfies(line -> {
                        assertThat(line.message()).contains(dispatcher.name()).endsWith("infrastructure fault");
                        assertThat(line.details()).contains("Caused by: " + unreachable);
                    });
        }
    }

    @Nested
    class TheLongestRetryBackoff {
        /** The longest backoff a {@link RetryPolicy} documents ({@code RetryPolicy.MAX_BACKOFF}). */
        private static final Duration LONGEST = Duration.ofHours(24);

        @Test
        void retriesOnceItHasElapsedThenParksAndAcknowledges() {
            VirtualTimeScheduler time = VirtualTimeScheduler.create();
            AtomicInteger attempts = new AtomicInteger();
            RetryPolicy longest = RetryPolicy.DEFAULT
                    .withMaxRetries(1)
                    .withBackoff(LONGEST, LONGEST)
                    .withJitter(0);
            AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                        attempts.incrementAndGet();
                        return Mono.error(new IllegalStateException("always fails"));
                    })
                    .schedulers(fixedScheduler(time))
                    .settings(LaneSettings.DEFAULT.withRetryPolicy(longest)));

            TestExchange exchange = TestExchange.of("o-1", 0);
            fixture.emit(exchange);
            time.advanceTime();
            assertThat(attempts).hasValue(1);

            time.advanceTimeBy(LONGEST.minusMillis(1));
            assertThat(attempts).hasValue(1);
            assertThat(exchange.settled).isNotDone();
            time.advanceTimeBy(Duration.ofMillis(1));

            assertThat(attempts).hasValue(2);
            assertThat(exchange.acknowledged()).isTrue();
            assertThat(fixture.parkingLot.entries())
                    .singleElement()
                    .satisfies(parked -> assertThat(parked.attempts()).isEqualTo(2));
            DispatcherStats stats = dispatcher.stats();
            assertThat(stats.retried()).isEqualTo(1);
            assertThat(stats.parked()).isEqualTo(1);
            assertThat(logs.lines(Level.WARN))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message())
                            .isEqualTo("Parked a message for sales.order/o-1 from TestDispatcher after 2 attempt(s): "
                                    + "java.lang.IllegalStateException: always fails"));
        }
    }

    private static void assertIsOrIsCausedBy(Throwable actual, Throwable expected) {
        for (Throwable current = actual; current != null; current = current.getCause()) {
            if (current == expected) {
                return;
            }
        }
        throw new AssertionError("expected " + expected + " or an error caused by it, but got " + actual, actual);
    }

    /** An exchange whose aggregate id cannot be had; records how it was settled. */
    private static final class BrokenIdExchange implements MessageExchange<String> {
        private final Supplier<@Nullable AggregateId> aggregateId;
        final AtomicInteger settlements = new AtomicInteger();
        final AtomicReference<@Nullable Throwable> rejection = new AtomicReference<>();

        BrokenIdExchange(Supplier<@Nullable AggregateId> aggregateId) {
            this.aggregateId = aggregateId;
        }

        @Override
        public String message() {
            return "broken-id";
        }

        @Override
        @SuppressWarnings("NullAway") // the defect under test: an id that is null
        public AggregateId aggregateId() {
            return aggregateId.get();
        }

        @Override
        public void acknowledge() {
            settlements.incrementAndGet();
        }

        @Override
        public void reject(Throwable reason) {
            rejection.set(reason);
            settlements.incrementAndGet();
        }

        @Override
        public String toString() {
            return "BrokenIdExchange";
        }
    }

    /**
     * A source that takes its subscriber at once but hands it the subscription only when told, and records on which
     * thread that subscription was cancelled.
     */
    private static final class LateSubscriptionSource implements Publisher<MessageExchange<String>> {
        final AtomicReference<@Nullable Subscriber<? super MessageExchange<String>>> subscriber =
                new AtomicReference<>();
        final CompletableFuture<String> cancelledOn = new CompletableFuture<>();

        @Override
        public void subscribe(Subscriber<? super MessageExchange<String>> s) {
            subscriber.set(s);
        }

        void deliverSubscription() {
            Subscriber<? super MessageExchange<String>> s = subscriber.get();
            assertThat(s).isNotNull();
            s.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {
                    cancelledOn.complete(Thread.currentThread().getName());
                }
            });
        }
    }
}
