package dev.lanes.cli.trace;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the sampled spans that end, then hands them to its delegate: with the spans its exporter received, what the
 * delegate (a batch processor) dropped. Thread-safe: spans end on any thread.
 */
final class CountingProcessor implements SpanProcessor {
    private final SpanProcessor delegate;
    private final LongAdder ended = new LongAdder();

    CountingProcessor(SpanProcessor delegate) {
        this.delegate = delegate;
    }

    /** The sampled spans that ended so far. */
    long ended() {
        return ended.sum();
    }

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
        return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
        if (span.getSpanContext().isSampled()) {
            ended.increment();
        }
        delegate.onEnd(span);
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    @Override
    public CompletableResultCode shutdown() {
        return delegate.shutdown();
    }

    @Override
    public CompletableResultCode forceFlush() {
        return delegate.forceFlush();
    }
}
