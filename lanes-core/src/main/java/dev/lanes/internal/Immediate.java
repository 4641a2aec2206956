package dev.lanes.internal;

import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import reactor.core.Exceptions;

/**
 * Runs a {@code Mono} that is a {@link Callable} ({@code Mono.empty()}, {@code just}, {@code fromRunnable}, {@code
 * fromCallable}, {@code error}) with a plain call instead of a subscription, as Reactor's own operators do with such
 * sources. A JVM-fatal error is rethrown; any other comes back unwrapped, as a subscriber would have seen it.
 */
public final class Immediate {
    private Immediate() {}

    /** Calls it for its effect; the error it signalled, or {@code null} when it completed. */
    public static @Nullable Throwable run(Callable<?> immediate) {
        try {
            immediate.call();
            return null;
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            return Exceptions.unwrap(error);
        }
    }
}
