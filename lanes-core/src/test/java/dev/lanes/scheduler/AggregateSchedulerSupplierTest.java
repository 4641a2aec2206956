package dev.lanes.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class AggregateSchedulerSupplierTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");
    private static final NamedAggregate INVOICE = NamedAggregate.of("sales", "invoice");

    private final List<AggregateSchedulerSupplier> created = new ArrayList<>();

    private DefaultAggregateSchedulerSupplier supplier(String name, int parallelism) {
        DefaultAggregateSchedulerSupplier supplier = new DefaultAggregateSchedulerSupplier(name, parallelism);
        created.add(supplier);
        return supplier;
    }

    @AfterEach
    void forceStopEverything() {
        created.forEach(AggregateSchedulerSupplier::forceStop);
    }

    @Nested
    class Construction {
        @Test
        void exposesNameAndParallelism() {
            DefaultAggregateSchedulerSupplier supplier = supplier("worker", 2);
            assertThat(supplier.name()).isEqualTo("worker");
            assertThat(supplier.parallelism()).isEqualTo(2);
            assertThat(supplier).hasToString("AggregateSchedulerSupplier[worker]");
        }

        @Test
        void defaultParallelismIsReactorsDefaultPoolSize() {
            assertThat(new DefaultAggregateSchedulerSupplier("worker").parallelism())
                    .isEqualTo(Schedulers.DEFAULT_POOL_SIZE);
        }

        @Test
        void rejectsNonPositiveParallelismNamingTheValue() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new DefaultAggregateSchedulerSupplier("worker", 0))
                    .withMessage("parallelism must be positive: 0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new DefaultAggregateSchedulerSupplier("worker", -4))
                    .withMessage("parallelism must be positive: -4");
        }

        @Test
        void rejectsABlankNameNamingTheValue() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> new DefaultAggregateSchedulerSupplier(" ", 1))
                    .withMessage("name must not be blank: ' '");
        }
    }

    @Nested
    class Caching {
        @Test
        void cachesOneSchedulerPerMaterializedNamedAggregate() {
            DefaultAggregateSchedulerSupplier supplier = supplier("worker", 1);

            Scheduler order = supplier.getOrInitialize(ORDER);

            assertThat(supplier.getOrInitialize(NamedAggregate.parse("sales.order")))
                    .isSameAs(order);
            assertThat(supplier.getOrInitialize(AggregateId.of(ORDER, "o-1"))).isSameAs(order);
            assertThat(supplier.getOrInitialize(INVOICE)).isNotSameAs(order);
            assertThat(supplier.size()).isEqualTo(2);
        }

        @Test
        void theSameAggregateNameInTwoContextsGetsTwoSchedulers() {
            DefaultAggregateSchedulerSupplier supplier = supplier("worker", 1);

            assertThat(supplier.getOrInitialize(NamedAggregate.of("sales", "order")))
                    .isNotSameAs(supplier.getOrInitialize(NamedAggregate.of("billing", "order")));
        }

        @Test
        void concurrentCallersForOneKeyGetExactlyOneInstance() throws Exception {
            ExecutorService callers = Executors.newFixedThreadPool(8);
            try {
                for (int repetition = 0; repetition < 200; repetition++) {
                    DefaultAggregateSchedulerSupplier supplier = supplier("race", 1);
                    CyclicBarrier start = new CyclicBarrier(8);
                    List<Future<Scheduler>> results = new ArrayList<>();
                    for (int caller = 0; caller < 64; caller++) {
                        boolean waitAtBarrier = caller < 8;
                        results.add(callers.submit(() -> {
                            if (waitAtBarrier) {
                                start.await(5, TimeUnit.SECONDS);
                            }
                            return supplier.getOrInitialize(NamedAggregate.of("sales", "order"));
                        }));
                    }
                    Set<Scheduler> distinct = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
                    for (Future<Scheduler> result : results) {
                        distinct.add(result.get(5, TimeUnit.SECONDS));
                    }
                    assertThat(distinct).as("repetition %d", repetition).hasSize(1);
                    supplier.forceStop();
                }
            } finally {
                callers.shutdownNow();
            }
        }
    }

    @Nested
    class Workers {
        @Test
        void threadNamesStartWithSupplierAndAggregateName() {
            DefaultAggregateSchedulerSupplier supplier = supplier("worker", 2);

            String threadName = Mono.fromCallable(() -> Thread.currentThread().getName())
                    .subscribeOn(supplier.getOrInitialize(ORDER))
                    .block(PROMPTLY);

            assertThat(threadName).startsWith("worker-order-");
        }

        @Test
        void explicitParallelismCapsConcurrentlyRunningWorkers() throws InterruptedException {
            DefaultAggregateSchedulerSupplier supplier = supplier("capped", 2);
            Scheduler scheduler = supplier.getOrInitialize(ORDER);
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            Set<String> threads = ConcurrentHashMap.newKeySet();
            CountDownLatch twoRunning = new CountDownLatch(2);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(8);

            for (int i = 0; i < 8; i++) {
                scheduler.schedule(() -> {
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    threads.add(Thread.currentThread().getName());
                    twoRunning.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    running.decrementAndGet();
                    done.countDown();
                });
            }

            assertThat(twoRunning.await(10, TimeUnit.SECONDS))
                    .as("two workers hold a task each at once")
                    .isTrue();
            // six tasks wait while both workers are held: a third worker, if it existed, would take one
            await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).until(() -> running.get() == 2);
            release.countDown();
            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(maxRunning.get()).isEqualTo(2);
            assertThat(threads).hasSize(2);
        }
    }

    @Nested
    class GracefulStop {
        @Test
        void nothingHappensUntilSubscribed() {
            DefaultAggregateSchedulerSupplier supplier = supplier("lazy", 1);
            Scheduler order = supplier.getOrInitialize(ORDER);

            Mono<Void> stop = supplier.stopGracefully();

            assertThat(order.isDisposed()).isFalse();
            assertThat(supplier.getOrInitialize(INVOICE)).isNotNull();
            StepVerifier.create(stop).expectComplete().verify(PROMPTLY);
            assertThat(order.isDisposed()).isTrue();
        }

        @Test
        void disposesEveryCachedSchedulerAndQueuedTasksStillRun() {
            DefaultAggregateSchedulerSupplier supplier = supplier("graceful", 1);
            Scheduler order = supplier.getOrInitialize(ORDER);
            Scheduler invoice = supplier.getOrInitialize(INVOICE);
            CountDownLatch release = new CountDownLatch(1);
            List<String> ran = Collections.synchronizedList(new ArrayList<>());
            order.schedule(() -> {
                awaitQuietly(release);
                ran.add("running");
            });
            order.schedule(() -> ran.add("queued"));

            StepVerifier.create(supplier.stopGracefully())
                    .expectSubscription()
                    .expectNoEvent(Duration.ofMillis(50))
                    .then(release::countDown)
                    .expectComplete()
                    .verify(PROMPTLY);

            assertThat(ran).containsExactly("running", "queued");
            assertThat(order.isDisposed()).isTrue();
            assertThat(invoice.isDisposed()).isTrue();
        }

        @Test
        void everyCallReturnsTheSameSharedTermination() {
            DefaultAggregateSchedulerSupplier supplier = supplier("shared", 1);
            assertThat(supplier.stopGracefully()).isSameAs(supplier.stopGracefully());
        }

        @Test
        void aCancelledObserverDoesNotCancelTheDisposalAndLateObserversComplete() {
            DefaultAggregateSchedulerSupplier supplier = supplier("observers", 1);
            Scheduler order = supplier.getOrInitialize(ORDER);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean taskFinished = new AtomicBoolean();
            order.schedule(() -> {
                awaitQuietly(release);
                taskFinished.set(true);
            });

            Disposable first = supplier.stopGracefully().subscribe();
            first.dispose();
            release.countDown();

            StepVerifier.create(supplier.stopGracefully()).expectComplete().verify(PROMPTLY);
            StepVerifier.create(supplier.stopGracefully()).expectComplete().verify(PROMPTLY);
            assertThat(taskFinished).isTrue();
            assertThat(order.isDisposed()).isTrue();
        }

        @Test
        void laterCallsAreRejectedNamingTheSupplier() {
            DefaultAggregateSchedulerSupplier supplier = supplier("stopped", 1);
            supplier.getOrInitialize(ORDER);
            supplier.stop();

            assertThatIllegalStateException()
                    .isThrownBy(() -> supplier.getOrInitialize(ORDER))
                    .withMessageContaining("AggregateSchedulerSupplier[stopped] has stopped")
                    .withMessageContaining("sales.order");
        }

        @Test
        void aHolderOfAStoppedSchedulerIsRejectedByReactor() {
            DefaultAggregateSchedulerSupplier supplier = supplier("stale", 1);
            Scheduler order = supplier.getOrInitialize(ORDER);
            supplier.stop();

            StepVerifier.create(Mono.just(1).subscribeOn(order))
                    .expectError(java.util.concurrent.RejectedExecutionException.class)
                    .verify(PROMPTLY);
        }

        @Test
        void stopWithTimeoutNamesTheSupplierWhenItDoesNotFinish() {
            DefaultAggregateSchedulerSupplier supplier = supplier("slow", 1);
            CountDownLatch release = new CountDownLatch(1);
            supplier.getOrInitialize(ORDER).schedule(() -> awaitQuietly(release));
            try {
                assertThatIllegalStateException()
                        .isThrownBy(() -> supplier.stop(Duration.ofMillis(50)))
                        .withMessage("AggregateSchedulerSupplier[slow] did not stop within PT0.05S");
            } finally {
                release.countDown();
            }
            supplier.stop();
        }
    }

    @Nested
    class ForceStop {
        @Test
        void disposesAtOnceInterruptingARunningTask() throws InterruptedException {
            DefaultAggregateSchedulerSupplier supplier = supplier("force", 1);
            Scheduler order = supplier.getOrInitialize(ORDER);
            Scheduler invoice = supplier.getOrInitialize(INVOICE);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch interrupted = new CountDownLatch(1);
            order.schedule(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            });
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

            supplier.forceStop();

            assertThat(order.isDisposed()).isTrue();
            assertThat(invoice.isDisposed()).isTrue();
            assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
        }

        @Test
        void takesOverARunningGracefulStopWhoseObserversThenComplete() throws InterruptedException {
            DefaultAggregateSchedulerSupplier supplier = supplier("takeover", 1);
            Scheduler order = supplier.getOrInitialize(ORDER);
            CountDownLatch started = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            order.schedule(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                }
            });
            assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
            supplier.stopGracefully().subscribe().dispose();

            StepVerifier.create(supplier.stopGracefully())
                    .expectSubscription()
                    .expectNoEvent(Duration.ofMillis(50))
                    .then(supplier::forceStop)
                    .expectComplete()
                    .verify(PROMPTLY);
            StepVerifier.create(supplier.stopGracefully()).expectComplete().verify(PROMPTLY);
            assertThat(interrupted).isTrue();
        }

        @Test
        void isIdempotentKeepsRejectingAndAGracefulStopAfterItCompletes() {
            DefaultAggregateSchedulerSupplier supplier = supplier("idempotent", 1);
            Scheduler order = supplier.getOrInitialize(ORDER);

            supplier.forceStop();
            supplier.forceStop();

            assertThat(order.isDisposed()).isTrue();
            assertThatIllegalStateException()
                    .isThrownBy(() -> supplier.getOrInitialize(INVOICE))
                    .withMessageContaining("AggregateSchedulerSupplier[idempotent]");
            StepVerifier.create(supplier.stopGracefully()).expectComplete().verify(PROMPTLY);
            supplier.forceStop();
        }
    }

    @Nested
    class StopRacingWithLookups {
        @Test
        void everySchedulerHandedOutIsDisposedAndEveryLaterCallIsRejected() throws Exception {
            ExecutorService callers = Executors.newFixedThreadPool(4);
            try {
                for (int iteration = 0; iteration < 2000; iteration++) {
                    raceOnce(callers, iteration, iteration % 8 == 0);
                }
            } finally {
                callers.shutdownNow();
            }
        }

        private void raceOnce(ExecutorService callers, int iteration, boolean graceful) throws Exception {
            DefaultAggregateSchedulerSupplier supplier = supplier("race-" + iteration, 1);
            List<Scheduler> handedOut = Collections.synchronizedList(new ArrayList<>());
            List<Throwable> rejections = Collections.synchronizedList(new ArrayList<>());
            CyclicBarrier start = new CyclicBarrier(4);
            List<Future<?>> lookups = new ArrayList<>();
            for (int caller = 0; caller < 3; caller++) {
                int seed = caller;
                lookups.add(callers.submit(() -> {
                    start.await(5, TimeUnit.SECONDS);
                    for (int i = 0; i < 20; i++) {
                        try {
                            handedOut.add(supplier.getOrInitialize(NamedAggregate.of("ctx", "agg" + ((seed + i) % 5))));
                        } catch (IllegalStateException rejected) {
                            rejections.add(rejected);
                        }
                    }
                    return null;
                }));
            }
            start.await(5, TimeUnit.SECONDS);
            if (graceful) {
                supplier.stopGracefully().block(PROMPTLY);
            } else {
                supplier.forceStop();
            }
            for (Future<?> lookup : lookups) {
                lookup.get(5, TimeUnit.SECONDS);
            }

            assertThat(handedOut).as("iteration %d", iteration).allMatch(Scheduler::isDisposed);
            assertThat(rejections)
                    .allSatisfy(rejection -> assertThat(rejection)
                            .hasMessageContaining("AggregateSchedulerSupplier[race-" + iteration + "]"));
            assertThatIllegalStateException()
                    .isThrownBy(() -> supplier.getOrInitialize(ORDER))
                    .withMessageContaining("race-" + iteration);
        }
    }

    @Nested
    class Borrowed {
        @Test
        void handsOutTheOwnersInstancesAndNeverStopsThem() {
            DefaultAggregateSchedulerSupplier owner = supplier("owner", 1);
            AggregateSchedulerSupplier borrowed = BorrowedAggregateSchedulerSupplier.borrow(owner);
            Scheduler order = owner.getOrInitialize(ORDER);

            assertThat(borrowed.getOrInitialize(NamedAggregate.parse("sales.order")))
                    .isSameAs(order);
            StepVerifier.create(borrowed.stopGracefully()).expectComplete().verify(PROMPTLY);
            borrowed.forceStop();
            borrowed.close();

            assertThat(order.isDisposed()).isFalse();
            assertThat(owner.getOrInitialize(INVOICE).isDisposed()).isFalse();
        }

        @Test
        void borrowingAViewBorrowsTheOwner() {
            DefaultAggregateSchedulerSupplier owner = supplier("owner", 1);
            AggregateSchedulerSupplier view = BorrowedAggregateSchedulerSupplier.borrow(owner);
            assertThat(BorrowedAggregateSchedulerSupplier.borrow(view)).isSameAs(view);
            assertThat(view).hasToString("Borrowed(AggregateSchedulerSupplier[owner])");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
