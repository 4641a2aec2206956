package dev.lanes.micrometer;

import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * A runtime's state, leases and shutdown as meters. The runtime is held weakly by the gauges; its shutdown report is
 * kept here once the runtime emits it (the runtime holds the subscription, not the other way round).
 */
final class RuntimeMeters implements MeterBinder {
    private final LanesRuntime runtime;
    private final Tags tags;

    RuntimeMeters(LanesRuntime runtime, Tags tags) {
        this.runtime = runtime;
        this.tags = tags;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (LanesRuntime.State state : LanesRuntime.State.values()) {
            Gauge.builder(LanesMicrometer.RUNTIME_STATE, runtime, current -> current.state() == state ? 1 : 0)
                    .description("1 for the runtime's current state, 0 for the others")
                    .tags(tags)
                    .tag(LanesMicrometer.STATE_TAG, state.name().toLowerCase(Locale.ROOT))
                    .register(registry);
        }
        Gauge.builder(LanesMicrometer.RUNTIME_LEASES_OPEN, runtime, LanesRuntime::openLeases)
                .description("Activity leases open now: admitted work not yet settled")
                .baseUnit("leases")
                .tags(tags)
                .register(registry);
        FunctionCounter.builder(LanesMicrometer.RUNTIME_LEASES_ADMITTED, runtime, LanesRuntime::admittedLeases)
                .description("Activity leases admitted since start")
                .baseUnit("leases")
                .tags(tags)
                .register(registry);
        bindShutdown(registry);
    }

    private void bindShutdown(MeterRegistry registry) {
        AtomicReference<@Nullable ShutdownReport> last = new AtomicReference<>();
        runtime.terminated().subscribe(last::set);
        TimeGauge.builder(
                        LanesMicrometer.SHUTDOWN_DURATION,
                        runtime,
                        TimeUnit.NANOSECONDS,
                        reported(last, report -> report.duration().toNanos()))
                .description("How long the runtime's shutdown took")
                .tags(tags)
                .register(registry);
        Gauge.builder(LanesMicrometer.SHUTDOWN_GRACEFUL, runtime, reported(last, report -> report.graceful() ? 1 : 0))
                .description("1 if the runtime's shutdown was graceful, 0 if it was forced or failed")
                .tags(tags)
                .register(registry);
        Gauge.builder(LanesMicrometer.SHUTDOWN_CUT, runtime, reported(last, ShutdownReport::cut))
                .description("Leases the shutdown cut short: admitted work cancelled or handed back")
                .baseUnit("leases")
                .tags(tags)
                .register(registry);
    }

    /** A value of the shutdown report, or NaN (Micrometer's "no value") before the runtime stopped. */
    private static ToDoubleFunction<LanesRuntime> reported(
            AtomicReference<@Nullable ShutdownReport> last, ToDoubleFunction<ShutdownReport> value) {
        return unused -> {
            ShutdownReport report = last.get();
            return report == null ? Double.NaN : value.applyAsDouble(report);
        };
    }

    @Override
    public String toString() {
        return "LanesRuntimeMeters[" + runtime + ", " + tags + "]";
    }
}
