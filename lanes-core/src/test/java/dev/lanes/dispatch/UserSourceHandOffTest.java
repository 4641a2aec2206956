package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.ExchangeRejectedException.Reason;
import dev.lanes.lifecycle.ActivityLease;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A user's source: a thread of the user's emits into {@code Sinks.many().unicast().onBackpressureBuffer()}, so the
 * exchanges the dispatcher has demand for arrive on that thread, outside the dispatcher's own requests. They are queued
 * and admitted by one drain on a worker, not admitted, published and handed to a worker one by one on the emitting
 * thread. The workers here are a queue of tasks the test runs itself, so what the emitting thread handed over is
 * counted exactly before anything runs.
 */
class UserSourceHandOffTest {
    private static final int EXCHANGES = 100;

    private final ManualWorkers workers = new ManualWorkers();
    private final Sinks.Many<MessageExchange<String>> sink =
            Sinks.many().unicast().onBackpressureBuffer();
    private final List<String> handled = new CopyOnWriteArrayList<>();

    private AggregateDispatcher<String> built(LaneStrategy strategy) {
        return AggregateDispatcher.<String>builder("HandOffDispatcher", TestExchange.ORDER)
                .source(sink.asFlux())
                .handler(exchange -> Mono.fromRunnable(() -> handled.add(exchange.message())))
                .schedulers(workers)
                .settings(LaneSettings.DEFAULT.withStrategy(strategy).withoutHandlerTimeout())
                .build();
    }

    private AggregateDispatcher<String> started(LaneStrategy strategy) {
        AggregateDispatcher<String> dispatcher = built(strategy);
        dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        dispatcher.start(); // the sink holds nothing yet: demand is open, nothing delivered
        assertThat(workers.submitted).as("tasks handed to the workers by start").hasValue(0);
        return dispatcher;
    }

    /** {@code count} exchanges of as many ids, emitted on this thread: the dispatcher has demand, so each arrives here. */
    private List<TestExchange> emit(int from, int count) {
        List<TestExchange> emitted = new ArrayList<>();
        for (int i = from; i < from + count; i++) {
            TestExchange exchange = TestExchange.of("id-" + i, i);
            assertThat(sink.tryEmitNext(exchange)).isEqualTo(Sinks.EmitResult.OK);
            emitted.add(exchange);
        }
        return emitted;
    }

    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void exchangesAUserThreadEmitsAreHandedToTheWorkersOncePerDrainNotOncePerExchange(LaneStrategy strategy) {
        AggregateDispatcher<String> dispatcher = started(strategy);

        List<TestExchange> emitted = emit(0, EXCHANGES);

        // the emitting thread handed over one drain; admitting each exchange here made each lane ready, one task each
        assertThat(workers.submitted)
                .as("tasks the emitting thread handed to the workers")
                .hasValue(1);
        workers.runAll();
        assertThat(handled).hasSize(EXCHANGES);
        assertThat(emitted).allMatch(TestExchange::acknowledged);
        assertThat(workers.submitted.get())
                .as("hand-offs for %d exchanges: the drain, then the lanes it made ready, in batches", EXCHANGES)
                .isLessThan(EXCHANGES / 4);
        assertThat(dispatcher.stats().queued()).isZero();
    }

    @Test
    void aDrainThatLetGoIsFollowedByANewOneAndNothingIsLost() {
        AggregateDispatcher<String> dispatcher = started(LaneStrategy.KEYED);
        List<TestExchange> first = emit(0, 10);
        assertThat(workers.submitted).as("the first drain").hasValue(1);
        workers.runOne(); // the drain: it admits the ten, hands their lanes over and lets go
        int afterFirstDrain = workers.submitted.get();

        List<TestExchange> second = emit(10, 10);

        assertThat(workers.submitted).as("one more drain for the next ten").hasValue(afterFirstDrain + 1);
        workers.runAll();

        List<String> expected = new ArrayList<>();
        first.forEach(e -> expected.add(e.message()));
        second.forEach(e -> expected.add(e.message()));
        assertThat(handled).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(dispatcher.stats().handled()).isEqualTo(20);
    }

    @Test
    void aGracefulStopWaitsForWhatIsQueuedForTheDrainAndSettlesEachOnce() {
        AggregateDispatcher<String> dispatcher = started(LaneStrategy.KEYED);
        List<TestExchange> queued = emit(0, 5); // delivered, waiting for the drain the emitting thread handed over

        AtomicInteger terminated = new AtomicInteger();
        Disposable stopping = dispatcher.stopGracefully().subscribe(null, error -> {}, terminated::incrementAndGet);
        try {
            assertThat(terminated)
                    .as("stopped before the queued exchanges were settled")
                    .hasValue(0);
            assertThat(dispatcher.state()).isEqualTo(AggregateDispatcher.State.STOPPING);

            workers.runAll(); // the drain runs after the stop began: what it takes goes back to the source

            assertThat(terminated).hasValue(1);
            assertThat(dispatcher.state()).isEqualTo(AggregateDispatcher.State.STOPPED);
            assertThat(queued).allSatisfy(exchange -> {
                assertThat(exchange.settlements).hasValue(1);
                assertThat(exchange.rejection())
                        .isInstanceOfSatisfying(
                                ExchangeRejectedException.class,
                                rejected -> assertThat(rejected.reason()).isEqualTo(Reason.STOPPING));
            });
            assertThat(handled).isEmpty();
        } finally {
            stopping.dispose();
        }
    }

    /**
     * In a runtime, exchanges queued for their drain have no lease of their own yet: the dispatcher says it holds
     * unleased work, so the runtime's quiet period does not end, and admission does not close, before the drain
     * admitted them. Without it the runtime saw no open lease once the publishing command's closed, closed admission
     * and quiesced the dispatcher, and the drain handed all five back with STOPPING (an in-memory bus loses them).
     */
    @Test
    void theRuntimesShutdownWaitsForWhatIsQueuedForTheDrainAndTheDrainHandlesIt() {
        VirtualTimeScheduler timer = VirtualTimeScheduler.create();
        AggregateDispatcher<String> dispatcher = built(LaneStrategy.KEYED);
        LanesRuntime runtime = new LanesRuntime(List.of(dispatcher), Duration.ofSeconds(10), Duration.ZERO, timer);
        runtime.start().block(PROMPTLY);
        List<TestExchange> queued;
        try (ActivityLease publishing = runtime.context().tryAcquire()) { // the command whose handler emits them
            assertThat(publishing).isNotNull();
            queued = emit(0, 5);
        }
        assertThat(workers.submitted).as("the drain handed over").hasValue(1);

        AtomicReference<@Nullable ShutdownReport> report = new AtomicReference<>();
        Disposable shutdown = runtime.shutdown().subscribe(report::set);
        try {
            timer.advanceTime();
            assertThat(report)
                    .as("shut down while five exchanges waited for their drain")
                    .hasValue(null);
            assertThat(dispatcher.state())
                    .as("quiesced while five exchanges waited for their drain")
                    .isEqualTo(AggregateDispatcher.State.RUNNING);

            workers.runAll();
            timer.advanceTime();

            assertThat(handled).containsExactlyInAnyOrder("id-0#0", "id-1#1", "id-2#2", "id-3#3", "id-4#4");
            assertThat(queued).allSatisfy(exchange -> {
                assertThat(exchange.settlements).hasValue(1);
                assertThat(exchange.acknowledged()).isTrue();
            });
            assertThat(report.get())
                    .isNotNull()
                    .satisfies(done ->
                            assertThat(done.graceful()).as(done.toString()).isTrue());
            assertThat(dispatcher.state()).isEqualTo(AggregateDispatcher.State.STOPPED);
        } finally {
            shutdown.dispose();
        }
    }

    /** One scheduler for every type, whose tasks wait in a queue until the test runs them on its own thread. */
    private static final class ManualWorkers implements AggregateSchedulerSupplier, Executor {
        final AtomicInteger submitted = new AtomicInteger();
        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
        private final Scheduler scheduler = Schedulers.fromExecutor(this);

        @Override
        public void execute(Runnable task) {
            submitted.incrementAndGet();
            tasks.add(task);
        }

        void runOne() {
            @Nullable Runnable task = tasks.poll();
            assertThat(task).as("a task to run").isNotNull();
            if (task != null) {
                task.run();
            }
        }

        void runAll() {
            for (@Nullable Runnable task; (task = tasks.poll()) != null; ) {
                task.run();
            }
        }

        @Override
        public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
            return scheduler;
        }

        @Override
        public Mono<Void> stopGracefully() {
            return Mono.empty();
        }

        @Override
        public void forceStop() {}
    }
}
