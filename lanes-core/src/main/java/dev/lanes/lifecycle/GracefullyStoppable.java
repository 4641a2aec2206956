package dev.lanes.lifecycle;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

/**
 * Something that owns resources (threads, subscriptions) and releases them on a graceful stop.
 *
 * <p>{@link #stopGracefully()} returns the shared termination: implementations build it once, it does nothing until
 * first subscribed, and every caller observes the same outcome. The blocking variants wait on that termination from the
 * calling thread; never call them from a thread the component itself uses.
 */
public interface GracefullyStoppable extends AutoCloseable {

    /** How long {@link #stop()} and {@link #close()} wait. */
    Duration DEFAULT_STOP_TIMEOUT = Duration.ofSeconds(30);

    /** The shared, lazily started graceful stop. Cancelling one subscription never cancels the stop itself. */
    Mono<Void> stopGracefully();

    /** Stops gracefully, waiting at most {@link #DEFAULT_STOP_TIMEOUT}. */
    default void stop() {
        stop(DEFAULT_STOP_TIMEOUT);
    }

    /**
     * Stops gracefully, waiting at most {@code timeout}.
     *
     * @throws IllegalStateException naming this component when the stop does not complete in time or the waiting
     *     thread is interrupted; the stop itself goes on
     * @throws RuntimeException the stop's own failure, unchanged when unchecked
     */
    default void stop(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        try {
            stopGracefully().toFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(this + " did not stop within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + this + " to stop", e);
        } catch (CancellationException e) {
            throw new IllegalStateException(this + " stop was cancelled", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(this + " failed to stop", cause);
        }
    }

    /** Same as {@link #stop()}. */
    @Override
    default void close() {
        stop();
    }
}
