package dev.lanes.cli.trace;

import dev.lanes.cli.report.Waterfall;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Keeps, in memory, every span of a sample of the traces that start with a send of a {@code Withdraw} (a transfer
 * starts with one): every {@link #every}-th such trace, at most {@link #keep}. Other spans pass by untouched. Then
 * {@link #waterfall()} draws one of the transfers among them.
 *
 * <p>Thread-safe: spans start and end on the senders' and lanes' threads.
 */
final class TransferRecorder implements SpanProcessor {
    static final AttributeKey<String> COMMAND_TYPE = AttributeKey.stringKey("lanes.command.type");
    static final AttributeKey<String> AGGREGATE_TYPE = AttributeKey.stringKey("lanes.aggregate.type");
    static final AttributeKey<String> AGGREGATE_ID = AttributeKey.stringKey("lanes.aggregate.id");
    static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    static final AttributeKey<String> PROCESSOR_KIND = AttributeKey.stringKey("lanes.processor.kind");
    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");

    private final int every;
    private final int keep;
    private final AtomicLong roots = new AtomicLong();
    private final Map<String, ConcurrentLinkedQueue<SpanData>> traces = new ConcurrentHashMap<>();

    /**
     * @throws IllegalArgumentException naming the value if {@code every} or {@code keep} is not positive
     */
    TransferRecorder(int every, int keep) {
        if (every < 1 || keep < 1) {
            throw new IllegalArgumentException(
                    "TransferRecorder needs every >= 1 and keep >= 1: every " + every + ", keep " + keep);
        }
        this.every = every;
        this.keep = keep;
    }

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
        if (span.getParentSpanContext().isValid() || !"Withdraw".equals(span.getAttribute(COMMAND_TYPE))) {
            return;
        }
        if (roots.getAndIncrement() % every == 0 && traces.size() < keep) {
            traces.putIfAbsent(span.getSpanContext().getTraceId(), new ConcurrentLinkedQueue<>());
        }
    }

    @Override
    public boolean isStartRequired() {
        return true;
    }

    @Override
    public void onEnd(ReadableSpan span) {
        ConcurrentLinkedQueue<SpanData> kept = traces.get(span.getSpanContext().getTraceId());
        if (kept != null) {
            kept.add(span.toSpanData());
        }
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    /** How many traces are kept. */
    int kept() {
        return traces.size();
    }

    /**
     * One transfer among the kept traces, the one of median length (from its send to its last span's end): a trace whose
     * saga sent the credit and whose credit's lane ended. Null if none is such.
     */
    @Nullable
    Waterfall waterfall() {
        List<List<SpanData>> transfers = new ArrayList<>();
        for (ConcurrentLinkedQueue<SpanData> spans : traces.values()) {
            List<SpanData> copy = List.copyOf(spans);
            if (isTransfer(copy)) {
                transfers.add(copy);
            }
        }
        if (transfers.isEmpty()) {
            return null;
        }
        transfers.sort(Comparator.comparingLong(TransferRecorder::length));
        List<SpanData> median = transfers.get(transfers.size() / 2);
        return Waterfalls.of("one transfer, the median of " + transfers.size() + " traced in full", median);
    }

    /** A root send, and a send by a processor followed by its lane: the saga's credit. */
    static boolean isTransfer(List<SpanData> spans) {
        boolean root =
                spans.stream().anyMatch(span -> !span.getParentSpanContext().isValid());
        return root
                && spans.stream()
                        .anyMatch(credit -> credit.getKind() == SpanKind.CONSUMER
                                && "Deposit".equals(credit.getAttributes().get(COMMAND_TYPE))
                                && spans.stream()
                                        .anyMatch(send -> send.getSpanId().equals(credit.getParentSpanId())
                                                && send.getParentSpanContext().isValid()));
    }

    private static long length(List<SpanData> spans) {
        long start =
                spans.stream().mapToLong(SpanData::getStartEpochNanos).min().orElse(0);
        long end = spans.stream().mapToLong(SpanData::getEndEpochNanos).max().orElse(0);
        return end - start;
    }

    static String describe(SpanData span) {
        String type = span.getAttributes().get(COMMAND_TYPE);
        String aggregate = Objects.toString(span.getAttributes().get(AGGREGATE_TYPE), "?") + "/"
                + Objects.toString(span.getAttributes().get(AGGREGATE_ID), "?");
        String group = span.getAttributes().get(CONSUMER_GROUP);
        if (span.getKind() == SpanKind.PRODUCER && span.getName().startsWith("publish ")) {
            return "bus: publish of " + aggregate + " to "
                    + span.getAttributes().get(MESSAGING_SYSTEM);
        }
        if (span.getKind() == SpanKind.PRODUCER) {
            return (span.getParentSpanContext().isValid() ? "saga: send " : "gateway: send ") + type + " to "
                    + aggregate;
        }
        if (span.getKind() == SpanKind.CONSUMER && group == null) {
            return ("Deposit".equals(type) ? "credit lane: " : "Withdraw".equals(type) ? "debit lane: " : "lane: ")
                    + type + " on " + aggregate;
        }
        if (span.getKind() == SpanKind.CONSUMER) {
            return Objects.toString(span.getAttributes().get(PROCESSOR_KIND), "processor") + ": " + group + " of "
                    + aggregate;
        }
        return span.getName();
    }
}
