package dev.lanes.internal.exchange;

import java.util.function.Function;

/**
 * What a lane is told when parking a message in a dead-letter queue failed after the message itself failed with
 * {@code error}: a queue that cannot park that kind of message ({@link UnsupportedOperationException}) hands the
 * message's own error on, with the refusal suppressed in it, so the lane's parking lot keeps the message; any other
 * failure of the queue is what the lane sees, with the message's error suppressed in it. Nothing is lost either way.
 */
public final class ParkingFailure {
    private ParkingFailure() {}

    /** The mapping for {@code Mono.onErrorMap} of a parking of a message that failed with {@code error}. */
    public static Function<Throwable, Throwable> keeping(Throwable error) {
        return failure -> {
            if (failure instanceof UnsupportedOperationException unsupported) { // to the lane's parking lot
                error.addSuppressed(unsupported);
                return error;
            }
            failure.addSuppressed(error);
            return failure;
        };
    }
}
