package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
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
 * <p><b>Catch-up.</b> While running, it reports {@code OUT_OF_SERVICE} until every processor fed from the store (a
 * {@code tracking} or {@code replay} feed) has a checkpoint at the store's head as it was when {@code Lanes} was built
 * ({@code catchingUp} lists each one behind: its {@code checkpoint} and {@code target}), so a load balancer sends no
 * request to an instance whose projections are still replaying; {@code lanes.processors.health-waits-for-catch-up=false}
 * turns that off. Once caught up, a processor is not waited for again (falling behind under load is not a health
 * matter). Reading a checkpoint blocks at most a second.
 *
 * <p>Details: {@code state}, {@code openLeases} (admitted work not yet settled), {@code parked} (messages each parking
 * lot holds: {@code commands}, {@code events}; parked messages are kept for an operator, not dropped), what the
 * auto-configuration wired ({@code store}, {@code snapshots}, {@code checkpoints}, {@code deadLetters}, {@code
 * commandBus}, {@code eventBus}, {@code schedulers}, {@code processors} with each one's feed), and once the runtime
 * stopped, its {@code shutdown} report. Thread-safety: any thread; each call reads the current state.
 */
public final class LanesHealthIndicator implements HealthIndicator {
    private static final Duration CHECKPOINT_READ = Duration.ofSeconds(1);

    private final LanesRuntime runtime;
    private final LanesParkingLots parking;
    private final LanesWiring wiring;
    private final boolean waitForCatchUp;
    private final AtomicReference<@Nullable ShutdownReport> report = new AtomicReference<>();

    /** The runtime's health and parked counts, for a {@code Lanes} the application built itself. */
    public LanesHealthIndicator(Lanes lanes, LanesParkingLots parking) {
        this(lanes, parking, new LanesWiring(), false);
    }

    /** With what the auto-configuration wired, and waiting for the catch-up of processors fed from the store. */
    LanesHealthIndicator(Lanes lanes, LanesParkingLots parking, LanesWiring wiring, boolean waitForCatchUp) {
        this.runtime = Objects.requireNonNull(lanes, "lanes").runtime();
        this.parking = Objects.requireNonNull(parking, "parking");
        this.wiring = Objects.requireNonNull(wiring, "wiring");
        this.waitForCatchUp = waitForCatchUp;
        runtime.terminated().subscribe(report::set);
    }

    @Override
    public Health health() {
        LanesRuntime.State state = runtime.state();
        ShutdownReport shutdown = report.get();
        Map<String, Map<String, Long>> behind =
                state == LanesRuntime.State.RUNNING ? wiring.behind(CHECKPOINT_READ) : Map.of();
        Health.Builder health = (waitForCatchUp && !behind.isEmpty() ? Health.outOfService() : status(state, shutdown))
                .withDetail("state", state)
                .withDetail("openLeases", runtime.openLeases())
                .withDetail(
                        "parked",
                        Map.of(
                                "commands", parking.commands().size(),
                                "events", parking.events().size()));
        health.withDetails(wiring.details());
        if (!behind.isEmpty()) {
            health.withDetail("catchingUp", behind);
        }
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
