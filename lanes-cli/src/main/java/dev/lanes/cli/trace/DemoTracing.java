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

    private final SdkTracerProvider provider;
    private final TransferRecorder recorder = new TransferRecorder(EVERY, KEEP);
    private final MessageTracing tracing;
    private final @Nullable URI endpoint;
    private final boolean dropping;

    private DemoTracing(@Nullable URI endpoint, boolean dropping, double sample) {
        this.endpoint = endpoint;
        this.dropping = dropping;
        SdkTracerProviderBuilder builder = SdkTracerProvider.builder()
                .setSampler(sample >= 1.0 ? Sampler.alwaysOn() : Sampler.parentBased(Sampler.traceIdRatioBased(sample)))
                .setResource(Resource.getDefault()
                        .merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), "lanes-demo"))));
        if (dropping) {
            builder.addSpanProcessor(
                    BatchSpanProcessor.builder(new DroppingExporter()).build());
        } else {
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
     * Tracing whose sampled spans are recorded and batched to an exporter that drops them: the cost of tracing to the
     * traced service, for {@code lanes bench --trace}. Draws no waterfall.
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

    @Override
    public void close() {
        provider.shutdown().join(10, TimeUnit.SECONDS);
    }
}
