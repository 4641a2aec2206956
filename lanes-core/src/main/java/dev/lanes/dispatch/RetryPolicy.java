package dev.lanes.dispatch;

import dev.lanes.internal.Require;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;

/**
 * How a lane retries a failed exchange before parking it. Retries happen inside the lane, so the lane's order holds:
 * the next exchange of the lane waits until this one is handled or parked.
 *
 * <p>Backoff before retry {@code n} (1-based) is {@code min(maxBackoff, initialBackoff * 2^(n-1))}, spread by {@code
 * +-jitter} of itself.
 *
 * <p>No backoff may exceed {@link #MAX_BACKOFF} (24 hours): a retry holds its lane for the whole delay, so a longer
 * wait is a parked message, not a retry. A longer backoff is refused at construction, never clamped.
 *
 * @param maxRetries retries after the first attempt; 0 parks on the first failure
 * @param initialBackoff delay before the first retry, at most {@link #MAX_BACKOFF}
 * @param maxBackoff cap of any delay, at most {@link #MAX_BACKOFF}
 * @param jitter fraction in {@code [0, 1]} by which each delay is spread at random
 * @param retryable which errors are worth retrying; others are parked at once
 */
public record RetryPolicy(
        int maxRetries, Duration initialBackoff, Duration maxBackoff, double jitter, Predicate<Throwable> retryable) {

    /** The longest backoff a policy accepts, for {@code initialBackoff} and {@code maxBackoff} alike. */
    public static final Duration MAX_BACKOFF = Duration.ofHours(24);

    /** 3 retries, 100 ms doubling up to 2 s, jitter 0.5, every error retryable. */
    public static final RetryPolicy DEFAULT =
            new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(2), 0.5, error -> true);

    /** Parks on the first failure. */
    public static final RetryPolicy NONE = DEFAULT.withMaxRetries(0);

    public RetryPolicy {
        Require.notNegative(maxRetries, "maxRetries");
        Require.notNegative(initialBackoff, "initialBackoff");
        Require.notNegative(maxBackoff, "maxBackoff");
        requireAtMostMaxBackoff(initialBackoff, "initialBackoff");
        requireAtMostMaxBackoff(maxBackoff, "maxBackoff");
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(
                    "maxBackoff must not be shorter than initialBackoff: " + maxBackoff + " < " + initialBackoff);
        }
        if (!(jitter >= 0.0 && jitter <= 1.0)) {
            throw new IllegalArgumentException("jitter must be within [0, 1]: " + jitter);
        }
        Objects.requireNonNull(retryable, "retryable");
    }

    private static void requireAtMostMaxBackoff(Duration backoff, String name) {
        if (backoff.compareTo(MAX_BACKOFF) > 0) {
            throw new IllegalArgumentException(name + " must be at most " + MAX_BACKOFF + ": " + backoff);
        }
    }

    public RetryPolicy withMaxRetries(int maxRetries) {
        return new RetryPolicy(maxRetries, initialBackoff, maxBackoff, jitter, retryable);
    }

    public RetryPolicy withBackoff(Duration initialBackoff, Duration maxBackoff) {
        return new RetryPolicy(maxRetries, initialBackoff, maxBackoff, jitter, retryable);
    }

    public RetryPolicy withJitter(double jitter) {
        return new RetryPolicy(maxRetries, initialBackoff, maxBackoff, jitter, retryable);
    }

    public RetryPolicy withRetryable(Predicate<Throwable> retryable) {
        return new RetryPolicy(maxRetries, initialBackoff, maxBackoff, jitter, retryable);
    }

    /** Whether a failure of attempt {@code failedAttempt} (1-based) with {@code error} is retried. */
    public boolean shouldRetry(int failedAttempt, Throwable error) {
        return failedAttempt <= maxRetries && retryable.test(error);
    }

    /** The delay before retry number {@code retry} (1-based), jitter applied. */
    public Duration backoff(int retry) {
        long base = initialBackoff.toNanos();
        long cap = maxBackoff.toNanos();
        long exponential = retry >= 63 ? cap : Math.min(cap, base << Math.min(retry - 1, 62));
        if (exponential < 0) {
            exponential = cap;
        }
        long spread = (long) (exponential * jitter);
        long jittered = spread == 0
                ? exponential
                : exponential + ThreadLocalRandom.current().nextLong(-spread, spread + 1);
        return Duration.ofNanos(Math.max(0, Math.min(cap, jittered)));
    }
}
