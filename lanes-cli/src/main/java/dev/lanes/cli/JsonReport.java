package dev.lanes.cli;

import dev.lanes.dispatch.HotKey;
import dev.lanes.runtime.ComponentReport;
import dev.lanes.runtime.ShutdownReport;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The report as JSON. Stable fields: {@code scenario}, {@code strategy}, {@code messages}, {@code handled}, {@code
 * throughputPerSec}, {@code latencyMicros} ({@code p50}, {@code p99}, {@code p999}), {@code otherIdsLatencyMicros}
 * ({@code p99}; hot-key only, else null), {@code orderingViolations}, {@code lost}, {@code parked}, {@code
 * liveThreads}, {@code invariants} ({@code name}, {@code status}), {@code shutdown} ({@code graceful}, {@code forced},
 * {@code durationMillis}). The others may grow.
 */
final class JsonReport {
    private JsonReport() {}

    static String render(Report report) {
        JsonWriter json = new JsonWriter().beginObject();
        json.field("scenario", report.scenario)
                .field("strategy", report.strategy)
                .field("passed", report.passed())
                .field("messages", report.messages)
                .field("handled", report.handled)
                .field("durationMillis", report.loadNanos / 1_000_000)
                .field("throughputPerSec", report.throughputPerSecond());
        json.name("latencyMicros");
        latency(json, report.latency);
        json.name("otherIdsLatencyMicros");
        nullableLatency(json, report.otherIds);
        json.name("hotIdLatencyMicros");
        nullableLatency(json, report.hotId);
        json.name("stages").beginArray();
        report.stages.forEach(stage -> latency(json, stage));
        json.endArray();
        json.field("orderingViolations", report.orderingViolations).field("lost", report.lost);
        Long stuck = report.stuckLaneMessages;
        if (stuck == null) {
            json.name("stuckLaneMessages").nullValue();
        } else {
            json.field("stuckLaneMessages", stuck.longValue());
        }
        json.field("parked", report.parked)
                .field("retried", report.retried)
                .field("rejected", report.rejected)
                .field("liveThreads", report.liveThreadsPeak)
                .field("liveThreadsAfterStop", report.liveThreadsAfter);
        json.name("invariants").beginArray();
        for (Report.Invariant invariant : report.invariants) {
            json.beginObject()
                    .field("name", invariant.name())
                    .field("status", invariant.status())
                    .field("detail", invariant.detail())
                    .endObject();
        }
        json.endArray();
        json.name("shutdown");
        shutdown(json, report.shutdown);
        json.name("aggregates").beginArray();
        report.aggregates.forEach(row -> aggregate(json, row));
        json.endArray();
        json.name("outcomes");
        counts(json, report.outcomes);
        json.name("options").beginObject();
        report.options.forEach(json::field);
        json.endObject();
        json.name("setup").beginArray();
        report.setup.forEach(json::value);
        json.endArray();
        json.name("notes").beginArray();
        report.notes.forEach(json::value);
        json.endArray();
        return json.endObject().toString() + System.lineSeparator();
    }

    private static void latency(JsonWriter json, Report.Latency latency) {
        json.beginObject()
                .field("name", latency.name())
                .field("count", latency.count())
                .field("p50", latency.p50())
                .field("p90", latency.p90())
                .field("p99", latency.p99())
                .field("p999", latency.p999())
                .field("max", latency.max())
                .endObject();
    }

    private static void nullableLatency(JsonWriter json, Report.@Nullable Latency latency) {
        if (latency == null) {
            json.nullValue();
        } else {
            latency(json, latency);
        }
    }

    private static void shutdown(JsonWriter json, @Nullable ShutdownReport shutdown) {
        if (shutdown == null) {
            json.beginObject()
                    .field("graceful", false)
                    .field("forced", false)
                    .name("durationMillis")
                    .nullValue()
                    .field("text", "the stop did not end in time")
                    .endObject();
            return;
        }
        json.beginObject()
                .field("graceful", shutdown.graceful())
                .field("forced", shutdown.forced())
                .field("durationMillis", shutdown.duration().toMillis())
                .field("deadlineMillis", shutdown.deadline().toMillis())
                .field("quietMillis", shutdown.quietWait().toMillis())
                .field("drainMillis", shutdown.drainWait().toMillis())
                .field("leasesAdmitted", shutdown.admitted())
                .field("openAtClose", Math.max(0, shutdown.openAtClose()))
                .field("cut", shutdown.cut())
                .field("failure", shutdown.failure() == null ? null : String.valueOf(shutdown.failure()));
        json.name("components").beginArray();
        for (ComponentReport component : shutdown.components()) {
            json.beginObject()
                    .field("name", component.name())
                    .field("outcome", component.outcome().name())
                    .field("stopMillis", component.stopDuration().toMillis())
                    .field("failure", component.failure() == null ? null : String.valueOf(component.failure()))
                    .endObject();
        }
        json.endArray();
        json.field("text", shutdown.toString()).endObject();
    }

    private static void aggregate(JsonWriter json, Report.AggregateRow row) {
        json.beginObject()
                .field("dispatcher", row.dispatcher())
                .field("aggregate", row.aggregate())
                .field("handled", row.handled())
                .field("retried", row.retried())
                .field("parked", row.parked())
                .field("rejected", row.rejected())
                .field("cancelled", row.cancelled());
        json.name("queueWaitMicros");
        latency(json, row.queueWait());
        json.name("handlerMicros");
        latency(json, row.handlerTime());
        json.field("peakLanes", row.peakLanes())
                .field("peakDeepestLane", row.peakDeepestLane())
                .field("peakLaneSkew", row.peakSkew());
        json.name("hottestIds").beginArray();
        for (HotKey key : row.hottest()) {
            json.beginObject()
                    .field("id", key.id())
                    .field("count", key.count())
                    .field("error", key.error())
                    .endObject();
        }
        json.endArray().endObject();
    }

    private static void counts(JsonWriter json, Map<String, Long> counts) {
        json.beginObject();
        counts.forEach((name, count) -> json.field(name, count.longValue()));
        json.endObject();
    }
}
