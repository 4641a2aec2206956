package dev.lanes.cli.run;

import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/** Waits for a runtime's shutdown report, a little longer than its own deadline. */
public final class Shutdowns {
    private static final Duration GRACE = Duration.ofSeconds(10);

    private Shutdowns() {}

    /** The quiet period, shortened to half the deadline when the deadline is shorter than twice it. */
    public static Duration quietPeriod(Duration preferred, Duration shutdownTimeout) {
        Duration half = shutdownTimeout.dividedBy(2);
        return preferred.compareTo(half) < 0 ? preferred : half;
    }

    /** The report, or null when even the forced stop did not end in time (the report then says so). */
    public static @Nullable ShutdownReport await(Mono<ShutdownReport> shutdown, Duration deadline) {
        try {
            return shutdown.block(deadline.plus(GRACE));
        } catch (IllegalStateException timedOut) {
            return null;
        }
    }
}
