package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.test.time.CountingScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/** The senders' timeouts: one sweep on the timer for all the waits, each wait ended at its deadline and never before. */
class WaitDeadlinesTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final CountingScheduler timer = new CountingScheduler(time);
    private final CommandResults results = new CommandResults(TIMEOUT, timer);

    private static CommandMessage command(String requestId) {
        return CommandMessage.of(AggregateId.of(ORDER, "o-" + requestId), "Place", requestId);
    }

    private CompletableFuture<CommandResult> track(CommandMessage command, Duration timeout) {
        return results.track(command, WaitStage.PROCESSED, timeout).outcome().toFuture();
    }

    private static boolean timedOut(CompletableFuture<CommandResult> outcome) {
        return outcome.isCompletedExceptionally()
                && outcome.handle((result, error) -> error instanceof StageNotReachedException notReached
                                && notReached.reason() == Reason.TIMED_OUT)
                        .join();
    }

    @Test
    void aThousandWaitsAreTimedByOneScheduledSweep() {
        List<CommandMessage> commands = new ArrayList<>();
        List<CompletableFuture<CommandResult>> outcomes = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            commands.add(command("r" + i));
            outcomes.add(track(commands.get(i), TIMEOUT));
        }
        assertThat(timer.scheduled()).as("sweeps scheduled for 1,000 waits").isEqualTo(1);
        for (int i = 1; i < 1_000; i++) {
            results.processed(commands.get(i), 1, List.of("Placed"));
        }

        time.advanceTimeBy(TIMEOUT);

        assertThat(timedOut(outcomes.get(0))).isTrue();
        assertThat(outcomes.subList(1, 1_000)).allMatch(outcome -> outcome.isDone() && !timedOut(outcome));
        assertThat(results.inFlight()).isZero();
        assertThat(timer.scheduled()).as("no sweep while nothing waits").isEqualTo(1);
    }

    @Test
    void aShorterTimeoutAddedLaterEndsAtItsOwnDeadline() {
        CompletableFuture<CommandResult> longer = track(command("long"), TIMEOUT);
        time.advanceTimeBy(Duration.ofSeconds(1));
        CompletableFuture<CommandResult> shorter = track(command("short"), Duration.ofSeconds(2));

        time.advanceTimeBy(Duration.ofMillis(1_999));
        assertThat(shorter).isNotDone();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(timedOut(shorter)).as("at 3 s").isTrue();
        assertThat(longer).isNotDone();

        time.advanceTimeBy(TIMEOUT.minusSeconds(3).minusMillis(1));
        assertThat(longer).isNotDone();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(timedOut(longer)).as("at 30 s").isTrue();
    }

    @Test
    void eachWaitEndsAtItsDeadlineAfterTheEarlierOnes() {
        CompletableFuture<CommandResult> first = track(command("first"), TIMEOUT);
        time.advanceTimeBy(Duration.ofSeconds(5));
        CompletableFuture<CommandResult> second = track(command("second"), TIMEOUT);

        time.advanceTimeBy(TIMEOUT.minusSeconds(5));
        assertThat(timedOut(first)).isTrue();
        assertThat(second).isNotDone();
        time.advanceTimeBy(Duration.ofSeconds(5).minusMillis(1));
        assertThat(second).isNotDone();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(timedOut(second)).isTrue();
    }

    @Test
    void crowdedDeadlinesEndNoSoonerThanTheirOwnAndAtMostTheGapAfter() {
        CompletableFuture<CommandResult> first = track(command("first"), TIMEOUT);
        time.advanceTimeBy(Duration.ofMillis(1));
        CompletableFuture<CommandResult> second = track(command("second"), TIMEOUT);

        time.advanceTimeBy(TIMEOUT.minusMillis(1));
        assertThat(timedOut(first)).isTrue();
        assertThat(second).as("1 ms before its deadline").isNotDone();
        time.advanceTimeBy(Duration.ofNanos(WaitDeadlines.MIN_GAP_NANOS));
        assertThat(timedOut(second)).isTrue();
    }

    @Test
    void aSenderThatSendsAgainFromItsTimeoutIsTimedAgain() {
        List<CompletableFuture<CommandResult>> outcomes = new ArrayList<>();
        AtomicInteger retries = new AtomicInteger();
        retryOnTimeout(track(command("r0"), TIMEOUT), outcomes, retries);

        time.advanceTimeBy(TIMEOUT); // every retry is tracked on the timer's thread, while the sweep runs
        for (int i = 0; i < 20; i++) {
            time.advanceTimeBy(Duration.ofSeconds(1));
        }

        assertThat(retries).hasValue(20);
        assertThat(outcomes).hasSize(21).allMatch(WaitDeadlinesTest::timedOut);
        assertThat(results.inFlight()).isZero();
    }

    private void retryOnTimeout(
            CompletableFuture<CommandResult> outcome,
            List<CompletableFuture<CommandResult>> outcomes,
            AtomicInteger retries) {
        outcomes.add(outcome);
        outcome.whenComplete((result, error) -> {
            int retry = retries.incrementAndGet();
            if (retry <= 20) {
                retryOnTimeout(track(command("r" + retry), Duration.ofSeconds(1)), outcomes, retries);
            } else {
                retries.decrementAndGet();
            }
        });
    }

    @Test
    void sendersWhoseWaitsComeAndGoWhileSweepsRunAreEachTimedOut() throws Exception {
        CommandResults realTime = new CommandResults(TIMEOUT, Schedulers.parallel());
        int senders = 4;
        int rounds = 300;
        ExecutorService pool = Executors.newFixedThreadPool(senders);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                int sender = s;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) { // one wait at a time: sweeps often find none ahead
                        Duration timeout = Duration.ofMillis(
                                1 + ThreadLocalRandom.current().nextInt(3));
                        CompletableFuture<CommandResult> outcome = realTime.track(
                                        command(sender + "." + i), WaitStage.PROCESSED, timeout)
                                .outcome()
                                .toFuture();
                        try {
                            outcome.handle((result, error) -> null).get(5, TimeUnit.SECONDS);
                        } catch (java.util.concurrent.TimeoutException lost) {
                            throw new AssertionError("wait " + sender + "." + i + " of " + timeout + " never ended");
                        }
                        assertThat(timedOut(outcome)).isTrue();
                    }
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> sender : done) {
                sender.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(realTime.inFlight()).isZero();
    }
}
