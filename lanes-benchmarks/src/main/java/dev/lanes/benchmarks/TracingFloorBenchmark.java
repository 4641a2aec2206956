package dev.lanes.benchmarks;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand;
import dev.lanes.examples.bank.Bank;
import dev.lanes.opentelemetry.LanesTracing;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The floor under always-on tracing's cost on the command path: what the OpenTelemetry SDK alone costs for the spans
 * one traced in-process command makes, next to the command itself untraced and traced. Every score is commands per
 * second on the machine's cores (the benchmark threads and whatever threads the run starts share them).
 *
 * <ul>
 *   <li>{@code command}: the {@code bench --scenario command} path in one process (gateway, in-memory command bus,
 *       keyed lanes on one shared worker per CPU, in-memory store, in-memory event bus, {@code PROCESSED}), 1,000
 *       accounts, {@value #IN_FLIGHT} deposits in flight per invocation (the bench's 64 clients); {@code tracing}
 *       {@code off} or {@code on} ({@code LanesTracing} over an SDK that samples every trace).
 *   <li>{@code sdkSpans}: the SDK alone, on two threads: per operation, the two spans of one traced command as Lanes
 *       makes them ({@code send bank.account}, PRODUCER, five start attributes and four more; {@code process
 *       bank.account}, CONSUMER, child of the send's remote context, five start attributes, four more and four step
 *       events; both with explicit timestamps), without Lanes: no headers, no gateway or lane.
 * </ul>
 *
 * <p>Both traced benchmarks end their spans in the same processor as {@code lanes bench --trace}: a {@link
 * BatchSpanProcessor} of queue {@code queue} (2,048 is the SDK's default) and export batch {@code batch} over an
 * exporter that counts and drops each batch. A processor whose queue is full drops the span, which is cheaper than
 * exporting it: each trial prints how many spans ended, were exported and were dropped, so read a score with its drops.
 *
 * <p>Reading: at {@code c} commands/s on {@code n} cores a command costs {@code n / c} core-seconds. Tracing's cost is
 * {@code 1/on - 1/off} per command; the SDK's own share of it is {@code 1/sdkSpans}; the rest is Lanes'.
 *
 * <pre>
 * java -jar lanes-benchmarks/target/benchmarks.jar TracingFloorBenchmark -f 1 -wi 3 -i 5 [-prof gc]
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class TracingFloorBenchmark {
    static final int ACCOUNTS = 1_000;
    static final int IN_FLIGHT = 64;

    /** A batch span processor over an exporter that counts and drops, as {@code lanes bench --trace} has. */
    static final class Export {
        final AtomicLong exported = new AtomicLong();
        final LongAdder ended = new LongAdder();
        final SdkTracerProvider provider;

        Export(int queue, int batch) {
            SpanExporter dropping = new SpanExporter() {
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
            };
            SpanProcessor batching = BatchSpanProcessor.builder(dropping)
                    .setMaxQueueSize(queue)
                    .setMaxExportBatchSize(batch)
                    .build();
            SpanProcessor counting = new SpanProcessor() {
                @Override
                public void onStart(Context parentContext, ReadWriteSpan span) {}

                @Override
                public boolean isStartRequired() {
                    return false;
                }

                @Override
                public void onEnd(ReadableSpan span) {
                    ended.increment();
                    batching.onEnd(span);
                }

                @Override
                public boolean isEndRequired() {
                    return true;
                }

                @Override
                public CompletableResultCode shutdown() {
                    return batching.shutdown();
                }

                @Override
                public CompletableResultCode forceFlush() {
                    return batching.forceFlush();
                }
            };
            this.provider = SdkTracerProvider.builder()
                    .setSampler(Sampler.alwaysOn())
                    .addSpanProcessor(counting)
                    .build();
        }

        /** Flushes and stops; prints how many spans ended, were exported and were dropped. */
        void close(String what) {
            provider.shutdown().join(30, TimeUnit.SECONDS);
            long ended = this.ended.sum();
            long out = exported.get();
            System.out.printf(
                    Locale.ROOT,
                    "%n%s: %,d spans ended, %,d exported, %,d dropped (%.1f %%)%n",
                    what,
                    ended,
                    out,
                    ended - out,
                    ended == 0 ? 0.0 : 100.0 * (ended - out) / ended);
        }
    }

    /** One Lanes instance of the bank's command side, traced or not, with 1,000 open accounts. */
    @State(Scope.Benchmark)
    public static class Command {
        @Param({"off", "on"})
        public String tracing = "off";

        @Param({"2048"})
        public int queue = 2048;

        @Param({"512"})
        public int batch = 512;

        @Nullable
        Export export;

        @Nullable
        Lanes lanes;

        @Nullable
        CommandGateway gateway;

        final List<AggregateId> accounts = new ArrayList<>();
        int next;

        @Setup(Level.Trial)
        public void start() {
            MessageTracing traced = MessageTracing.NONE;
            if (tracing.equals("on")) {
                Export made = new Export(queue, batch);
                export = made;
                traced = LanesTracing.of(OpenTelemetrySdk.builder()
                        .setTracerProvider(made.provider)
                        .build());
            }
            lanes = Lanes.builder()
                    .tracing(traced)
                    .aggregate(Bank.definition())
                    .eventStore(EventStores.inMemory())
                    .sharedWorkers(Runtime.getRuntime().availableProcessors())
                    .commandBusCapacity(16_384)
                    .build()
                    .start();
            CommandGateway started = lanes.gateway();
            gateway = started;
            for (int i = 0; i < ACCOUNTS; i++) {
                AggregateId account = Bank.account("acct-" + i);
                accounts.add(account);
                started.send(account, new AccountCommand.OpenAccount("owner-" + i), WaitStage.PROCESSED)
                        .block(Duration.ofSeconds(10));
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            Lanes running = lanes;
            if (running != null) {
                running.stop();
            }
            Export made = export;
            if (made != null) {
                made.close("command, tracing on, queue " + queue + ", batch " + batch);
            }
        }

        Flux<CommandResult> deposits() {
            CommandGateway gateway = Objects.requireNonNull(this.gateway, "started");
            List<Mono<CommandResult>> sends = new ArrayList<>(IN_FLIGHT);
            for (int i = 0; i < IN_FLIGHT; i++) {
                AggregateId account = accounts.get(next);
                next = (next + 1) % ACCOUNTS;
                sends.add(gateway.send(account, new AccountCommand.Deposit(1, "dep-" + next), WaitStage.PROCESSED));
            }
            return Flux.merge(sends);
        }
    }

    /** The SDK alone: a tracer whose spans end in the bench's processor. */
    @State(Scope.Benchmark)
    public static class Sdk {
        @Param({"2048"})
        public int queue = 2048;

        @Param({"512"})
        public int batch = 512;

        static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
        static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
        static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
        static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
        static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
        static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("messaging.message.conversation_id");
        static final AttributeKey<String> AGGREGATE_TYPE = AttributeKey.stringKey("lanes.aggregate.type");
        static final AttributeKey<String> AGGREGATE_ID = AttributeKey.stringKey("lanes.aggregate.id");
        static final AttributeKey<String> COMMAND_TYPE = AttributeKey.stringKey("lanes.command.type");
        static final String[] STEPS = {"load", "decide", "append", "publish"};

        final Attributes send = start("send");
        final Attributes process = start("process");
        final String[] messageIds = new String[1024];
        final String[] aggregateIds = new String[ACCOUNTS];

        @Nullable
        Export export;

        @Nullable
        Tracer tracer;

        final long anchorEpochNanos = System.currentTimeMillis() * 1_000_000L;
        final long anchorNanoTime = System.nanoTime();

        private static Attributes start(String operation) {
            return Attributes.of(
                    SYSTEM, "lanes", OPERATION_TYPE, operation, OPERATION_NAME, operation, DESTINATION, "bank.account");
        }

        @Setup(Level.Trial)
        public void start() {
            for (int i = 0; i < messageIds.length; i++) {
                messageIds[i] = UUID.randomUUID().toString();
            }
            for (int i = 0; i < aggregateIds.length; i++) {
                aggregateIds[i] = "acct-" + i;
            }
            Export made = new Export(queue, batch);
            export = made;
            tracer = made.provider.get("dev.lanes");
        }

        @TearDown(Level.Trial)
        public void stop() {
            Export made = export;
            if (made != null) {
                made.close("sdkSpans, queue " + queue + ", batch " + batch);
            }
        }

        long nanos() {
            return anchorEpochNanos + (System.nanoTime() - anchorNanoTime);
        }
    }

    /** Per thread: which message and account its next command is. */
    @State(Scope.Thread)
    public static class Cursor {
        int at;
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public @Nullable CommandResult command(Command command) {
        return command.deposits().blockLast(Duration.ofSeconds(30));
    }

    @Benchmark
    @Threads(2)
    public Span sdkSpans(Sdk sdk, Cursor cursor) {
        int at = cursor.at++;
        String messageId = sdk.messageIds[at & (sdk.messageIds.length - 1)];
        String aggregateId = sdk.aggregateIds[at % ACCOUNTS];
        Tracer tracer = Objects.requireNonNull(sdk.tracer, "started");
        Span send = tracer.spanBuilder("send bank.account")
                .setSpanKind(SpanKind.PRODUCER)
                .setParent(Context.root())
                .setAllAttributes(sdk.send)
                .setAttribute(COMMAND_TYPE_KEY, "Deposit")
                .setStartTimestamp(sdk.nanos(), TimeUnit.NANOSECONDS)
                .startSpan();
        if (send.isRecording()) {
            send.setAttribute(Sdk.MESSAGE_ID, messageId);
            send.setAttribute(Sdk.CONVERSATION_ID, messageId);
            send.setAttribute(Sdk.AGGREGATE_TYPE, "bank.account");
            send.setAttribute(Sdk.AGGREGATE_ID, aggregateId);
        }
        SpanContext sent = send.getSpanContext();
        Context parent = Context.root()
                .with(Span.wrap(SpanContext.createFromRemoteParent(
                        sent.getTraceId(), sent.getSpanId(), sent.getTraceFlags(), sent.getTraceState())));
        Span lane = tracer.spanBuilder("process bank.account")
                .setSpanKind(SpanKind.CONSUMER)
                .setParent(parent)
                .setAllAttributes(sdk.process)
                .setAttribute(COMMAND_TYPE_KEY, "Deposit")
                .setStartTimestamp(sdk.nanos(), TimeUnit.NANOSECONDS)
                .startSpan();
        if (lane.isRecording()) {
            lane.setAttribute(Sdk.MESSAGE_ID, messageId);
            lane.setAttribute(Sdk.CONVERSATION_ID, messageId);
            lane.setAttribute(Sdk.AGGREGATE_TYPE, "bank.account");
            lane.setAttribute(Sdk.AGGREGATE_ID, aggregateId);
            for (String step : Sdk.STEPS) {
                lane.addEvent(step, sdk.nanos(), TimeUnit.NANOSECONDS);
            }
        }
        lane.end(sdk.nanos(), TimeUnit.NANOSECONDS);
        send.end(sdk.nanos(), TimeUnit.NANOSECONDS);
        return send;
    }

    static final AttributeKey<String> COMMAND_TYPE_KEY = Sdk.COMMAND_TYPE;
}
