package dev.lanes.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The race {@link WorkerPool}'s stall check bounds: a worker queues tasks on itself, a few microseconds apart, and then
 * blocks, while the other worker runs them and goes idle between them. The pool can lose the wake-up for a task pushed
 * while that worker was going idle; without the check the rest then waits for the blocked worker. On JDK 17.0.15 that
 * happened in 44 to 61 of 2,000 rounds (three runs), and in 29 of 5,000 with three other processes loading both CPUs.
 * With the check, every round's tasks ran within 100 ms.
 */
class WorkerPoolStallTest {
    private static final int ROUNDS = 1_000;
    private static final int QUEUED = 50;
    private static final int MAX_GAP_NANOS = 20_000;
    /** Far past the check's period, so a loaded machine passes; without the check, a lost wake-up waits it out. */
    private static final Duration BOUND = WorkerPool.STALL_CHECK.multipliedBy(100);

    private final ScheduledThreadPoolExecutor timer = SupplierTimer.create("stall");

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    @Test
    void tasksABlockedWorkerQueuedOnItselfRunOnTheIdleOneWithinTheStallCheck() throws InterruptedException {
        for (int round = 0; round < ROUNDS; round++) {
            WorkerPool pool = new WorkerPool("stall-" + round, 2, timer);
            try {
                assertThat(queuedTasksRanWhileTheirWorkerBlocks(pool))
                        .as("round %d: the %d tasks the blocked worker queued ran within %s", round, QUEUED, BOUND)
                        .isTrue();
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private static boolean queuedTasksRanWhileTheirWorkerBlocks(WorkerPool pool) throws InterruptedException {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch queued = new CountDownLatch(QUEUED);
        pool.execute(() -> {
            for (int i = 0; i < QUEUED; i++) {
                pool.execute(queued::countDown);
                spinFor(ThreadLocalRandom.current().nextInt(MAX_GAP_NANOS));
            }
            busy.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(busy.await(30, TimeUnit.SECONDS)).isTrue();
        boolean ran = queued.await(BOUND.toMillis(), TimeUnit.MILLISECONDS);
        release.countDown();
        return ran;
    }

    /** A gap between two pushes, without parking: the pushing worker must stay running, as a busy handler would. */
    private static void spinFor(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
