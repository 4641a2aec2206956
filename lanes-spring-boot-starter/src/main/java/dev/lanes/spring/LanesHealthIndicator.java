package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of the auto-configured {@link Lanes}, contributed as {@code lanes}: {@code UP} while its runtime is {@code
 * RUNNING}; {@code OUT_OF_SERVICE} before it runs ({@code NEW}, {@code STARTING}) and while or after it stops
 * gracefully; {@code DOWN} once its stop was forced or failed (a component's fatal fault stops the runtime), with that
 * failure.
 *
 * <p>Details: {@code state}, {@code openLeases} (admitted work not yet settled), {@code parked} (messages each parking
 * lot holds: {@code commands}, {@code events}; parked messages are kept for an operator, not dropped), and once the
 * runtime stopped, its {@code shutdown} report. Thread-safety: any thread; each call reads the current state.
 */
public final class LanesHealthIndicator implements HealthIndicator {
    private final LanesRuntime runtime;
    private final LanesParkingLots parking;
    private final AtomicReference<@Nullable ShutdownReport> report = new AtomicReference<>();

    public LanesHealthIndicator(Lanes lanes, LanesParkingLots parking) {
        this.runtime = Objects.requireNonNull(lanes, "lanes").runtime();
        this.parking = Objects.requireNonNull(parking, "parking");
        runtime.terminated().subscribe(report::set);
    }

    @Override
    public Health health() {
        LanesRuntime.State state = runtime.state();
        ShutdownReport shutdown = report.get();
        Health.Builder health = status(state, shutdown)
                .withDetail("state", state)
                .withDetail("openLeases", runtime.openLeases())
                .withDetail(
                        "parked",
                        Map.of(
                                "commands", parking.commands().size(),
                                "events", parking.events().size()));
        if (shutdown != null) {
            health.withDetail("shutdown", shutdown.toString());
        }
        return health.build();
    }

    private static Health.Builder status(LanesRuntime.State state, @Nullable ShutdownReport shutdown) {
        if (state == LanesRuntime.State.RUNNING) {
            return Health.up();
        }
        if (shutdown == null || shutdown.graceful()) {
            return Health.outOfService();
        }
        Throwable failure = shutdown.failure();
        return failure != null ? Health.down(failure) : Health.down();
    }
}
