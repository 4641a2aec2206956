package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A writer that starts while another batch is being written waits for its batch to fill: the submission that fills
 * it wakes it at once, long before its wait would end, and no wake-up is lost to a submission that races the writer's
 * start. Each test's wait is a minute, so a writer left asleep fails the test by its bound, not by its wait.
 */
class GroupCommitFillTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final long MINUTE_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final int BATCH = 3;

    /** A thread for every task at once: no writer ever queues behind another on a busy thread. */
    private final Scheduler scheduler =
            Schedulers.fromExecutorService(Executors.newCachedThreadPool(), "group-commit-fill-test");

    private final List<List<String>> written = new CopyOnWriteArrayList<>();

    @AfterEach
    void dispose() {
        scheduler.dispose();
    }

    /**
     * Two writers, batches of {@value #BATCH}, a minute's wait; a batch with "hold" counts {@code holding} down, then
     * is written once {@code held} opens.
     */
    private GroupCommit<String, String> committing(CountDownLatch holding, CountDownLatch held) {
        return new GroupCommit<>(
                "Fill test",
                scheduler,
                2,
                BATCH,
                MINUTE_NANOS,
                batch -> {
                    List<String> items =
                            batch.stream().map(pending -> pending.item).collect(Collectors.toList());
                    if (items.contains("hold")) {
                        holding.countDown();
                        try {
                            assertThat(held.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                                    .isTrue();
                        } catch (InterruptedException stopped) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    written.add(items);
                    batch.forEach(pending -> pending.succeed(pending.item));
                },
                () -> new IllegalStateException("Fill test is closed"));
    }

    /** A group commit whose first writer is busy with "hold" until {@link #release()}. */
    private final class OneWriterHeld {
        private final CountDownLatch held = new CountDownLatch(1);
        private final GroupCommit<String, String> commit;
        private final Mono<String> hold;

        OneWriterHeld() throws InterruptedException {
            CountDownLatch holding = new CountDownLatch(1);
            commit = committing(holding, held);
            hold = commit.submit("hold").cache();
            hold.subscribe();
            assertThat(holding.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            written.clear();
        }

        void release() {
            held.countDown();
            assertThat(hold.block(TIMEOUT)).isEqualTo("hold");
        }
    }

    @Test
    void theSubmissionThatFillsAWaitingWritersBatchWakesIt() throws InterruptedException {
        OneWriterHeld oneHeld = new OneWriterHeld();
        GroupCommit<String, String> commit = oneHeld.commit;
        Mono<String> first = commit.submit("a").cache();
        first.subscribe();
        await().atMost(TIMEOUT).until(() -> commit.writersWaitingToFill() == 1);

        List<String> rest =
                Flux.merge(commit.submit("b"), commit.submit("c")).collectList().block(TIMEOUT);

        assertThat(rest).containsExactlyInAnyOrder("b", "c");
        assertThat(first.block(TIMEOUT)).isEqualTo("a");
        assertThat(written).containsExactly(List.of("a", "b", "c"));
        oneHeld.release();
    }

    @Test
    void noWakeUpIsLostToASubmissionThatRacesTheWaitingWritersStart() throws InterruptedException {
        for (int round = 0; round < 5000; round++) {
            OneWriterHeld oneHeld = new OneWriterHeld();
            GroupCommit<String, String> commit = oneHeld.commit;
            Mono<String> first = commit.submit("r0").cache();
            first.subscribe(); // starts the second writer, on another thread
            // the filling submission lands before, while or after that writer begins to wait, 13 ns later each round
            // over a sweep of 60 us (a writer that looked at the queue before counting itself in as waiting failed 4
            // runs of 6)
            long until = System.nanoTime() + (round * 13L) % 60_000;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }

            List<String> rest = Flux.merge(commit.submit("r1"), commit.submit("r2"))
                    .collectList()
                    .block(TIMEOUT);

            assertThat(rest).as("round %d", round).containsExactlyInAnyOrder("r1", "r2");
            assertThat(first.block(TIMEOUT)).isEqualTo("r0");
            assertThat(written).as("round %d", round).containsExactly(List.of("r0", "r1", "r2"));
            oneHeld.release();
        }
    }
}
