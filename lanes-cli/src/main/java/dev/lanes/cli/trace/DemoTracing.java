package dev.lanes.cli.trace;

import dev.lanes.cli.report.Waterfall;
import dev.lanes.opentelemetry.LanesTracing;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SdkTracerProviderBuilder;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The demo's tracing: an OpenTelemetry SDK of its own (service {@code lanes-demo}, every trace sampled) whose spans a
 * {@link TransferRecorder} samples in memory for the report's waterfall and, with an OTLP endpoint, a batch exporter
 * sends to a collector over HTTP (the JDK's client). Closed after the run: pending spans are flushed, for at most 10 s.
 */
public final class DemoTracing implements AutoCloseable {
    /** Every 16th transfer-like trace is kept, 64 at most: enough for a median, a bounded memory. */
    static final int EVERY = 16;

    static final int KEEP = 64;

    /**
     * The bench's batch processor queue: the SDK's default, 2,048 spans, fills in a few milliseconds at 150,000 traced
     * commands/s (two spans each) whenever the exporter thread waits for a core, and the processor then drops spans;
     * 32,768 holds about a tenth of a second of them, enough for the exporter's pauses at the bench's rates; the
     * report's note counts any span it still drops. The export batch (512) and the schedule delay (5 s) stay the SDK's.
     */
    static final int BENCH_QUEUE = 32_768;

    private final SdkTracerProvider provider;
    private final TransferRecorder recorder = new TransferRecorder(EVERY, KEEP);
    private final MessageTracing tracing;
    private final @Nullable URI endpoint;
    private final boolean dropping;
    private final @Nullable DroppingExporter dropped;
    private final @Nullable CountingProcessor counted;

    private DemoTracing(@Nullable URI endpoint, boolean dropping, double sample) {
        this.endpoint = endpoint;
        this.dropping = dropping;
        SdkTracerProviderBuilder builder = SdkTracerProvider.builder()
                .setSampler(sample >= 1.0 ? Sampler.alwaysOn() : Sampler.parentBased(Sampler.traceIdRatioBased(sample)))
                .setResource(Resource.getDefault()
                        .merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "lanes-demo"))));
        if (dropping) {
            DroppingExporter exporter = new DroppingExporter();
            CountingProcessor counting = new CountingProcessor(BatchSpanProcessor.builder(exporter)
                    .setMaxQueueSize(BENCH_QUEUE)
                    .build());
            this.dropped = exporter;
            this.counted = counting;
            builder.addSpanProcessor(counting);
        } else {
            this.dropped = null;
            this.counted = null;
            builder.addSpanProcessor(recorder);
        }
        if (endpoint != null) {
            builder.addSpanProcessor(BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder()
                            .setEndpoint(endpoint.toString())
                            .build())
                    .build());
        }
        this.provider = builder.build();
        this.tracing = LanesTracing.of(
                OpenTelemetrySdk.builder().setTracerProvider(provider).build());
    }

    /**
     * Starts the demo's tracing.
     *
     * @param endpoint an OTLP/HTTP traces endpoint ({@code http://localhost:4318/v1/traces}), or null to keep the spans
     *     in this process only
     */
    public static DemoTracing start(@Nullable URI endpoint) {
        return new DemoTracing(endpoint, false, 1.0);
    }

    /**
     * Tracing whose sampled spans are recorded and batched to an exporter that counts and drops them: the cost of
     * tracing to the traced service, for {@code lanes bench --trace}. The batch processor's queue is {@link
     * #BENCH_QUEUE} spans, so that it exports every span at the bench's rates; {@link #spanCounts} says whether it did.
     * Draws no waterfall.
     *
     * @param sample the share of traces sampled (parent-based, by trace id); 1.0 samples every trace
     * @throws IllegalArgumentException naming the value if it is not in (0, 1]
     */
    public static DemoTracing dropping(double sample) {
        if (!(sample > 0 && sample <= 1)) {
            throw new IllegalArgumentException("the sampled share of traces must be in (0, 1]: " + sample);
        }
        return new DemoTracing(null, true, sample);
    }

    /** What to give {@code Lanes.Builder#tracing}. */
    public MessageTracing tracing() {
        return tracing;
    }

    /** One traced transfer of the run, or null if none was traced in full. */
    public @Nullable Waterfall waterfall() {
        return dropping ? null : recorder.waterfall();
    }

    /** One line for the report's setup: what is traced and where the spans go. */
    public String describe() {
        return "traced with OpenTelemetry (every send, lane and processor; "
                + (endpoint == null ? "spans kept in memory" : "spans exported to " + endpoint) + ")";
    }

    /**
     * With {@link #dropping}, after {@link #close}: how many sampled spans ended, how many the exporter received and how
     * many the batch processor dropped (its queue full); null otherwise.
     */
    public @Nullable String spanCounts() {
        DroppingExporter exporter = dropped;
        CountingProcessor counting = counted;
        if (exporter == null || counting == null) {
            return null;
        }
        long ended = counting.ended();
        long exported = exporter.exported();
        return String.format(
                Locale.ROOT,
                "Tracing: %,d sampled spans ended, %,d exported, %,d dropped by the batch span processor",
                ended,
                exported,
                ended - exported);
    }

    @Override
    public void close() {
        provider.shutdown().join(10, TimeUnit.SECONDS);
    }
}
