package dev.lanes.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What a runtime's shutdown did, against its deadline. Every duration is read from the runtime's one clock, its timer's
 * ({@code timer.now(NANOSECONDS)}): in virtual time, the virtual time that passed.
 *
 * @param forced whether anything was force-stopped (the deadline won, an explicit force, or a failed stop)
 * @param duration from the stop request (also when it came during startup) to the end
 * @param deadline the shutdown timeout it ran under
 * @param quietWait from the start of shutdown until admission closed
 * @param drainWait from admission closed until every admitted lease closed (or force cut it short)
 * @param admitted leases admitted since start
 * @param openAtClose leases still open when admission closed (work that then drained or was cut)
 * @param cut leases open when a force began: admitted work it cut short (cancelled or handed back to its source)
 * @param components per component, in registration order
 * @param failure the primary failure (a component fault, a stop failure, the deadline), later ones suppressed
 */
public record ShutdownReport(
        boolean forced,
        Duration duration,
        Duration deadline,
        Duration quietWait,
        Duration drainWait,
        long admitted,
        long openAtClose,
        long cut,
        List<ComponentReport> components,
        @Nullable Throwable failure) {

    public ShutdownReport {
        components = List.copyOf(components);
    }

    public boolean graceful() {
        return !forced && failure == null;
    }

    /** The report as one block, as logged at INFO. */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        text.append(String.format(
                Locale.ROOT,
                "Lanes runtime shutdown: %s in %d ms of a %d ms deadline (quiet %d ms, drain %d ms); leases admitted %d,"
                        + " open at close %d, cut %d",
                graceful() ? "graceful" : forced ? "FORCED" : "FAILED",
                duration.toMillis(),
                deadline.toMillis(),
                quietWait.toMillis(),
                drainWait.toMillis(),
                admitted,
                Math.max(0, openAtClose),
                cut));
        for (ComponentReport component : components) {
            text.append(String.format(
                    Locale.ROOT,
                    "%n  %-28s %-11s stop %d ms%s",
                    component.name(),
                    component.outcome(),
                    component.stopDuration().toMillis(),
                    component.failure() == null ? "" : "  failure: " + component.failure()));
        }
        if (failure != null) {
            text.append(System.lineSeparator()).append("  failure: ").append(failure);
        }
        return text.toString();
    }
}
