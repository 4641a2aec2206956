package dev.lanes.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.NamedAggregate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.test.StepVerifier;

/** The schedulers the suppliers hand out: Reactor schedulers on shared-queue worker pools. */
class PoolSchedulerTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(10);
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    private final List<DefaultAggregateSchedulerSupplier> suppliers = new ArrayList<>();

    @AfterEach
    void stop() {
        suppliers.forEach(DefaultAggregateSchedulerSupplier::forceStop);
    }

    private DefaultAggregateSchedulerSupplier track(DefaultAggregateSchedulerSupplier supplier) {
        suppliers.add(supplier);
        return supplier;
    }

    /** Counts {@code started} down, blocks its worker until {@code release} (10 s at most), then counts finished. */
    private static Runnable blockingTask(CountDownLatch started, CountDownLatch release, AtomicInteger finished) {
        return () -> {
            started.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finished.incrementAndGet();
        };
    }

    @Nested
    class AsAReactorScheduler {
        @Test
        void aWorkerRunsItsTasksOneAtATimeInSubmissionOrder() throws InterruptedException {
            Scheduler scheduler =
                    track(new DefaultAggregateSchedulerSupplier("serial", 2)).getOrInitialize(ORDER);
            Scheduler.Worker worker = scheduler.createWorker();
            List<Integer> seen = new CopyOnWriteArrayList<>();
            AtomicInteger running = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(2_000);

            for (int i = 0; i < 2_000; i++) {
                int n = i;
                worker.schedule(() -> {
                    if (running.incrementAndGet() > 1) {
                        overlaps.incrementAndGet();
                    }
                    seen.add(n);
                    running.decrementAndGet();
                    done.countDown();
                });
            }

            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(overlaps).hasValue(0);
            assertThat(seen).isSorted().hasSize(2_000);
            worker.dispose();
        }

        @Test
        void publishOnAndDelaysWorkOnTheTypesWorkers() {
            Scheduler scheduler =
                    track(new DefaultAggregateSchedulerSupplier("reactor", 2)).getOrInitialize(ORDER);

            StepVerifier.create(Flux.range(0, 100)
                            .publishOn(scheduler)
                            .map(i -> Thread.currentThread().getName())
                            .distinct()
                            .concatWith(Mono.delay(Duration.ofMillis(5), scheduler)
                                    .map(tick -> Thread.currentThread().getName())))
                    .thenConsumeWhile(name -> name.startsWith("reactor-order-"))
                    .expectComplete()
                    .verify(PROMPTLY);
        }

        @Test
        void aDisposedSchedulerRefusesWorkNamingItself() {
            Scheduler scheduler =
                    track(new DefaultAggregateSchedulerSupplier("gone", 2)).getOrInitialize(ORDER);
            scheduler.dispose();

            assertThat(scheduler.isDisposed()).isTrue();
            assertThatExceptionOfType(RejectedExecutionException.class)
                    .isThrownBy(() -> scheduler.schedule(() -> {}))
                    .withMessageContaining("gone-order");
            assertThatExceptionOfType(RejectedExecutionException.class)
                    .isThrownBy(() -> scheduler.schedule(() -> {}, 1, TimeUnit.MILLISECONDS));
        }

        @Test
        void aGracefulDisposalLetsTheRunningTaskFinishAndThenCompletes() throws InterruptedException {
            Scheduler scheduler =
                    track(new DefaultAggregateSchedulerSupplier("graceful", 1)).getOrInitialize(ORDER);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger finished = new AtomicInteger();
            scheduler.schedule(blockingTask(started, release, finished));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            StepVerifier.create(scheduler.disposeGracefully())
                    .then(() -> assertThatExceptionOfType(RejectedExecutionException.class)
                            .isThrownBy(() -> scheduler.schedule(() -> {})))
                    .expectTimeout(Duration.ofMillis(100))
                    .verify(PROMPTLY);
            release.countDown();
            StepVerifier.create(scheduler.disposeGracefully()).expectComplete().verify(PROMPTLY);
            assertThat(finished).hasValue(1);
        }
    }

    @Nested
    class WorkersShareTheirQueues {
        @Test
        void aTaskQueuedBehindABusyWorkerIsTakenByTheIdleOne() throws InterruptedException {
            Scheduler scheduler =
                    track(new DefaultAggregateSchedulerSupplier("steal", 2)).getOrInitialize(ORDER);
            CountDownLatch busy = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch others = new CountDownLatch(50);
            // a task that blocks its worker and, from that worker, submits more: they land in its own queue
            scheduler.schedule(() -> {
                for (int i = 0; i < 50; i++) {
                    scheduler.schedule(others::countDown);
                }
                busy.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();

            // with a queue per worker (Reactor's parallel scheduler) they would wait for the release
            assertThat(others.await(10, TimeUnit.SECONDS)).isTrue();
            release.countDown();
        }
    }

    @Nested
    class SharedPool {
        @Test
        void everyTypeGetsItsOwnSchedulerButAllRunOnTheSameFewWorkers() throws InterruptedException {
            DefaultAggregateSchedulerSupplier supplier = track(DefaultAggregateSchedulerSupplier.sharedPool("pool", 2));
            Set<String> threads = ConcurrentHashMap.newKeySet();
            Set<Scheduler> schedulers = ConcurrentHashMap.newKeySet();
            CountDownLatch done = new CountDownLatch(20 * 50);

            for (int t = 0; t < 20; t++) {
                Scheduler scheduler = supplier.getOrInitialize(NamedAggregate.of("sales", "type" + t));
                schedulers.add(scheduler);
                assertThat(supplier.getOrInitialize(NamedAggregate.of("sales", "type" + t)))
                        .isSameAs(scheduler);
                assertThat(scheduler.toString()).contains("pool-type" + t);
                for (int i = 0; i < 50; i++) {
                    scheduler.schedule(() -> {
                        threads.add(Thread.currentThread().getName());
                        done.countDown();
                    });
                }
            }

            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(schedulers).hasSize(20);
            assertThat(threads).hasSizeLessThanOrEqualTo(2).allMatch(name -> name.startsWith("pool-shared-"));
            assertThat(supplier.parallelism()).isEqualTo(2);
        }

        @Test
        void aGracefulStopDrainsEveryTypeAndEndsTheWorkers() {
            DefaultAggregateSchedulerSupplier supplier =
                    track(DefaultAggregateSchedulerSupplier.sharedPool("drain", 2));
            AtomicInteger ran = new AtomicInteger();
            for (int t = 0; t < 5; t++) {
                Scheduler scheduler = supplier.getOrInitialize(NamedAggregate.of("sales", "type" + t));
                for (int i = 0; i < 100; i++) {
                    scheduler.schedule(ran::incrementAndGet);
                }
            }

            supplier.stopGracefully().block(PROMPTLY);

            assertThat(ran).hasValue(500);
            await().atMost(PROMPTLY)
                    .until(() -> Thread.getAllStackTraces().keySet().stream()
                            .noneMatch(thread -> thread.getName().startsWith("drain-shared-")));
        }

        @Test
        void aTypesGracefulDisposalRefusesItsTasksAndWaitsUntilThePoolIsIdle() throws InterruptedException {
            DefaultAggregateSchedulerSupplier supplier = track(DefaultAggregateSchedulerSupplier.sharedPool("view", 2));
            Scheduler leaving = supplier.getOrInitialize(NamedAggregate.of("sales", "leaving"));
            Scheduler staying = supplier.getOrInitialize(NamedAggregate.of("sales", "staying"));
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger finished = new AtomicInteger();
            leaving.schedule(blockingTask(started, release, finished));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            StepVerifier.create(leaving.disposeGracefully())
                    .then(() -> assertThatExceptionOfType(RejectedExecutionException.class)
                            .isThrownBy(() -> leaving.schedule(() -> {}))
                            .withMessageContaining("view-leaving"))
                    .expectTimeout(Duration.ofMillis(300))
                    .verify(PROMPTLY);
            assertThat(staying.isDisposed()).isFalse();
            CountDownLatch stayingRan = new CountDownLatch(1);
            staying.schedule(stayingRan::countDown);
            assertThat(stayingRan.await(10, TimeUnit.SECONDS)).isTrue();

            release.countDown();
            StepVerifier.create(leaving.disposeGracefully()).expectComplete().verify(PROMPTLY);
            assertThat(finished).hasValue(1);
        }
    }
}
