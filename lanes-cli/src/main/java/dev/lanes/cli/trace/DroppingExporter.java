package dev.lanes.cli.trace;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes every batch, counts its spans and drops them: the exporter of {@link DemoTracing#dropping}. Called by the
 * batch processor's one thread; {@link #exported} may be read from any.
 */
final class DroppingExporter implements SpanExporter {
    private final AtomicLong exported = new AtomicLong();

    /** The spans received so far. */
    long exported() {
        return exported.get();
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> spans) {
        exported.addAndGet(spans.size());
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
