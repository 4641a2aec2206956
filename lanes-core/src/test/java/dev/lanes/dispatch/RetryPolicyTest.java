package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
    /** The longest backoff the policy documents ({@code RetryPolicy.MAX_BACKOFF}). */
    private static final Duration LONGEST = Duration.ofHours(24);

    @Test
    void aMaxBackoffBeyondTheMaximumIsRefusedNamingTheValue() {
        Duration forever = ChronoUnit.FOREVER.getDuration();

        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryPolicy.DEFAULT.withBackoff(Duration.ofMillis(1), forever))
                .withMessage("maxBackoff must be at most PT24H: " + forever);
    }

    @Test
    void aMaxBackoffJustBeyondTheMaximumIsRefusedNotClamped() {
        Duration justBeyond = LONGEST.plusNanos(1);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryPolicy.DEFAULT.withBackoff(Duration.ZERO, justBeyond))
                .withMessage("maxBackoff must be at most PT24H: " + justBeyond);
    }

    @Test
    void anInitialBackoffBeyondTheMaximumIsRefusedNamingTheValue() {
        Duration twoDays = Duration.ofDays(2);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> RetryPolicy.DEFAULT.withBackoff(twoDays, twoDays))
                .withMessage("initialBackoff must be at most PT24H: PT48H");
    }

    @Test
    void theMaximumItselfIsAcceptedAndNoRetryWaitsLonger() {
        RetryPolicy longest = RetryPolicy.DEFAULT
                .withMaxRetries(100)
                .withBackoff(LONGEST, LONGEST)
                .withJitter(1);

        for (int retry = 1; retry <= 100; retry++) {
            assertThat(longest.backoff(retry)).isBetween(Duration.ZERO, LONGEST);
        }
    }
}
