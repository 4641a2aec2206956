package dev.lanes.cli;

import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/** Waits for a runtime's shutdown report, a little longer than its own deadline. */
final class Shutdowns {
    private static final Duration GRACE = Duration.ofSeconds(10);

    private Shutdowns() {}

    /** The report, or null when even the forced stop did not end in time (the report then says so). */
    static @Nullable ShutdownReport await(Mono<ShutdownReport> shutdown, Duration deadline) {
        try {
            return shutdown.block(deadline.plus(GRACE));
        } catch (IllegalStateException timedOut) {
            return null;
        }
    }
}
