package dev.lanes.cli.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.lanes.dispatch.HotKey;
import dev.lanes.runtime.ComponentReport;
import dev.lanes.runtime.ShutdownReport;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The report as JSON, written by Jackson from the records below (their components are the fields, in order). Stable
 * fields: {@code scenario}, {@code strategy}, {@code messages}, {@code handled}, {@code throughputPerSec}, {@code
 * latencyMicros} ({@code p50}, {@code p99}, {@code p999}), {@code otherIdsLatencyMicros} ({@code p99}; hot-key only,
 * else null), {@code orderingViolations}, {@code lost}, {@code parked}, {@code liveThreads}, {@code invariants}
 * ({@code name}, {@code status}), {@code shutdown} ({@code graceful}, {@code forced}, {@code durationMillis}), {@code
 * run} ({@code jdk}, {@code processors}, {@code startedAt}, {@code commit}). The others may grow.
 */
final class JsonReport {
    private static final ObjectWriter WRITER = JsonMapper.builder().build().writerWithDefaultPrettyPrinter();

    private JsonReport() {}

    static String render(Report report) {
        try {
            return WRITER.writeValueAsString(Document.of(report)) + System.lineSeparator();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "JsonReport: the report could not be written: " + e.getOriginalMessage(), e);
        }
    }

    /** The whole document. */
    record Document(
            String scenario,
            String strategy,
            boolean passed,
            long messages,
            long handled,
            long durationMillis,
            double throughputPerSec,
            long warmupMillis,
            long warmupMessages,
            Report.Latency latencyMicros,
            Report.@Nullable Latency otherIdsLatencyMicros,
            Report.@Nullable Latency hotIdLatencyMicros,
            List<Report.Latency> stages,
            long orderingViolations,
            long lost,
            @Nullable Long stuckLaneMessages,
            long parked,
            long retried,
            long rejected,
            int liveThreads,
            int liveThreadsAfterStop,
            List<Invariant> invariants,
            Shutdown shutdown,
            List<Aggregate> aggregates,
            Map<String, Long> outcomes,
            Map<String, String> options,
            List<String> setup,
            List<String> notes,
            RunInfo run) {

        static Document of(Report report) {
            Report.Setup setup = report.setup();
            Report.Load load = report.load();
            Report.LatencyReport latency = report.latency();
            Report.Counts counts = report.counts();
            return new Document(
                    setup.scenario(),
                    setup.strategy(),
                    report.passed(),
                    load.messages(),
                    load.handled(),
                    load.durationMillis(),
                    load.throughputPerSecond(),
                    load.warmupNanos() / 1_000_000,
                    load.warmupMessages(),
                    latency.all(),
                    latency.otherIds(),
                    latency.hotId(),
                    latency.stages(),
                    counts.orderingViolations(),
                    counts.lost(),
                    counts.stuckLaneMessages(),
                    counts.parked(),
                    counts.retried(),
                    counts.rejected(),
                    report.threads().peak(),
                    report.threads().afterStop(),
                    report.invariants().stream().map(Invariant::of).toList(),
                    Shutdown.of(report.shutdown()),
                    report.aggregates().stream().map(Aggregate::of).toList(),
                    counts.outcomes(),
                    setup.options(),
                    setup.lines(),
                    report.notes(),
                    report.run());
        }
    }

    /** An invariant: {@code status} is {@code PASS} or {@code FAIL}. */
    record Invariant(String name, String status, String detail) {
        static Invariant of(Report.Invariant invariant) {
            return new Invariant(invariant.name(), invariant.status(), invariant.detail());
        }
    }

    /**
     * The runtime's shutdown report; {@code durationMillis} and the rest null when even the forced stop did not end in
     * time.
     */
    record Shutdown(
            boolean graceful,
            boolean forced,
            @Nullable Long durationMillis,
            @Nullable Long deadlineMillis,
            @Nullable Long quietMillis,
            @Nullable Long drainMillis,
            @Nullable Long leasesAdmitted,
            @Nullable Long openAtClose,
            @Nullable Long cut,
            @Nullable String failure,
            List<Component> components,
            String text) {

        static Shutdown of(@Nullable ShutdownReport shutdown) {
            if (shutdown == null) {
                return new Shutdown(
                        false,
                        false,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        null,
                        List.of(),
                        "the stop did not end in time");
            }
            return new Shutdown(
                    shutdown.graceful(),
                    shutdown.forced(),
                    shutdown.duration().toMillis(),
                    shutdown.deadline().toMillis(),
                    shutdown.quietWait().toMillis(),
                    shutdown.drainWait().toMillis(),
                    shutdown.admitted(),
                    Math.max(0, shutdown.openAtClose()),
                    shutdown.cut(),
                    describe(shutdown.failure()),
                    shutdown.components().stream().map(Component::of).toList(),
                    shutdown.toString());
        }
    }

    /** One component's stop. */
    record Component(
            String name,
            String outcome,
            long stopMillis,
            @Nullable String failure) {
        static Component of(ComponentReport component) {
            return new Component(
                    component.name(),
                    component.outcome().name(),
                    component.stopDuration().toMillis(),
                    describe(component.failure()));
        }
    }

    /** One dispatcher of one aggregate type. */
    record Aggregate(
            String dispatcher,
            String aggregate,
            long handled,
            long retried,
            long parked,
            long rejected,
            long cancelled,
            Report.Latency queueWaitMicros,
            Report.Latency handlerMicros,
            int peakLanes,
            int peakDeepestLane,
            double peakLaneSkew,
            List<HotKey> hottestIds) {

        static Aggregate of(Report.AggregateRow row) {
            return new Aggregate(
                    row.dispatcher(),
                    row.aggregate(),
                    row.handled(),
                    row.retried(),
                    row.parked(),
                    row.rejected(),
                    row.cancelled(),
                    row.queueWait(),
                    row.handlerTime(),
                    row.peakLanes(),
                    row.peakDeepestLane(),
                    row.peakSkew(),
                    row.hottest());
        }
    }

    private static @Nullable String describe(@Nullable Throwable failure) {
        return failure == null ? null : String.valueOf(failure);
    }
}
