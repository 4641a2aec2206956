package dev.lanes.cli.bank;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.errors.DisconnectException;
import org.junit.jupiter.api.Test;

/**
 * The wait for the consumer groups to read to the end, in virtual time: an admin call that fails (a broker still down
 * when the stop begins) is retried with a bounded backoff until the deadline, then reported.
 */
class TopicsDrainedTest {

    /** Virtual time: a sleep advances it; the calls take none unless told. */
    private static final class VirtualTicker implements TopicsDrained.Ticker {
        long now;
        final List<Duration> sleeps = new ArrayList<>();

        @Override
        public long nanoTime() {
            return now;
        }

        @Override
        public void sleep(Duration duration) {
            sleeps.add(duration);
            now += duration.toNanos();
        }
    }

    @Test
    void aBrokerDownForTheFirstCallsIsRetriedUntilTheGroupsAreDrained() {
        VirtualTicker ticker = new VirtualTicker();
        AtomicInteger calls = new AtomicInteger();
        TopicsDrained.Lag lag = callTimeout -> {
            if (calls.incrementAndGet() <= 3) {
                throw new ExecutionException(new DisconnectException("broker 127.0.0.1:9092 is down"));
            }
            return 0;
        };

        TopicsDrained.Outcome outcome = TopicsDrained.await(lag, Duration.ofSeconds(30), ticker);

        assertThat(outcome.drained()).as("%s", outcome).isTrue();
        assertThat(outcome.failedCalls()).isEqualTo(3);
        assertThat(outcome.lastFailure()).contains("broker 127.0.0.1:9092 is down");
        assertThat(calls).hasValue(5); // three failed, then two quiet looks in a row
    }

    @Test
    void aBrokerThatStaysDownIsRetriedWithABoundedBackoffUntilTheDeadlineThenReported() {
        VirtualTicker ticker = new VirtualTicker();
        List<Duration> callTimeouts = new ArrayList<>();
        TopicsDrained.Lag lag = callTimeout -> {
            callTimeouts.add(callTimeout);
            ticker.now += callTimeout.toNanos(); // each call waits its whole timeout for the broker
            throw new TimeoutException("no answer from the broker");
        };

        TopicsDrained.Outcome outcome = TopicsDrained.await(lag, Duration.ofSeconds(30), ticker);

        assertThat(outcome.drained()).isFalse();
        assertThat(outcome.failedCalls()).isGreaterThan(1).isEqualTo(callTimeouts.size());
        assertThat(outcome.lastFailure()).contains("no answer from the broker");
        assertThat(Duration.ofNanos(ticker.now))
                .as("the wait ends at its deadline")
                .isEqualTo(Duration.ofSeconds(30));
        assertThat(callTimeouts)
                .allSatisfy(timeout -> assertThat(timeout).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5)));
        assertThat(ticker.sleeps)
                .allSatisfy(sleep -> assertThat(sleep).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2)));
    }

    @Test
    void theBackoffGrowsFromThePollIntervalToItsBoundAndALookThatSucceedsResetsIt() {
        VirtualTicker ticker = new VirtualTicker();
        AtomicInteger calls = new AtomicInteger();
        TopicsDrained.Lag lag = callTimeout -> {
            int call = calls.incrementAndGet();
            if (call <= 6 || call == 8) {
                throw new ExecutionException(new DisconnectException("down"));
            }
            return call == 7 ? 5 : 0;
        };

        TopicsDrained.Outcome outcome = TopicsDrained.await(lag, Duration.ofSeconds(60), ticker);

        assertThat(outcome.drained()).isTrue();
        assertThat(outcome.failedCalls()).isEqualTo(7);
        assertThat(ticker.sleeps)
                .containsExactly(
                        Duration.ofMillis(200),
                        Duration.ofMillis(400),
                        Duration.ofMillis(800),
                        Duration.ofMillis(1600),
                        Duration.ofSeconds(2),
                        Duration.ofSeconds(2),
                        Duration.ofMillis(200), // a look answered (lag 5): the backoff starts over
                        Duration.ofMillis(200),
                        Duration.ofMillis(200));
    }
}
