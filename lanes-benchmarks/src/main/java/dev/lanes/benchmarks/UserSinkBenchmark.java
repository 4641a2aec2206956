package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageParallelism;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@link LaneThroughputBenchmark}'s traffic (1,000,000 exchanges over 10,000 UUID-shaped ids, handler {@code
 * Mono.empty()}, G = {@link MessageParallelism#DEFAULT_PARALLELISM}, {@link Wiring#WORKERS} workers) fed the way a user
 * feeds the engine: {@code producers} threads of the benchmark's own emit into one {@code
 * Sinks.many().unicast().onBackpressureBuffer()}, whose {@code asFlux()} is the source. Each producer emits its share of
 * the order with {@code tryEmitNext}, yielding and trying again on {@code FAIL_NON_SERIALIZED} (another producer is
 * inside the sink) or {@code FAIL_OVERFLOW}, as a user's loop would. So the exchanges reach the variant on the
 * producers' threads whenever it has demand, and from the sink's buffer on whichever thread requests when it has none.
 *
 * <p>One operation = one exchange. Each iteration is a single shot: sink, variant and producer threads are made in the
 * iteration's setup (the producers wait on a latch); the measured part starts the variant, releases the producers and
 * waits until every exchange was acknowledged.
 *
 * <pre>
 * java -jar lanes-benchmarks/target/benchmarks.jar UserSinkBenchmark -f 3 -wi 3 -i 5
 * java -jar lanes-benchmarks/target/benchmarks.jar UserSinkBenchmark -p producers=1 -p variant=KEYED \
 *     -prof async:libPath=/path/to/libasyncProfiler.so
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(LaneThroughputBenchmark.MESSAGES)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class UserSinkBenchmark {
    static final int MESSAGES = LaneThroughputBenchmark.MESSAGES;

    @Param({"REACTOR_CHAIN", "HASHED", "KEYED"})
    public Variant variant = Variant.KEYED;

    /** Threads emitting into the sink; over 1 they contend for it and retry on {@code FAIL_NON_SERIALIZED}. */
    @Param({"1", "2"})
    public int producers = 1;

    private AggregateId[] ids = new AggregateId[0];
    private int[] order = new int[0];
    private Completion completion = new Completion(0);
    private Wiring wiring = new Wiring(Variant.REACTOR_CHAIN, 1, "unused");
    private CpuMeter cpu = new CpuMeter();
    private CountDownLatch go = new CountDownLatch(1);
    private final List<Thread> threads = new ArrayList<>();

    @Setup(Level.Trial)
    public void traffic() {
        ids = Feed.ids(Feed.ORDER, LaneThroughputBenchmark.IDS, 1);
        order = Feed.uniformOrder(LaneThroughputBenchmark.IDS, MESSAGES, 2);
    }

    @Setup(Level.Iteration)
    public void wire() {
        completion = new Completion(MESSAGES);
        Sinks.Many<BenchExchange> sink = Sinks.many().unicast().onBackpressureBuffer();
        wiring = new Wiring(variant, MessageParallelism.DEFAULT_PARALLELISM, "bench");
        wiring.wire(Feed.ORDER, sink.asFlux(), exchange -> Mono.empty());
        go = new CountDownLatch(1);
        threads.clear();
        for (int p = 0; p < producers; p++) {
            int from = (int) ((long) MESSAGES * p / producers);
            int to = (int) ((long) MESSAGES * (p + 1) / producers);
            Thread producer = new Thread(() -> emit(sink, from, to), "bench-producer-" + p);
            producer.setDaemon(true);
            producer.start();
            threads.add(producer);
        }
        cpu = new CpuMeter();
    }

    /** A user's producer loop: emits exchanges {@code [from, to)} of the order, retrying what the sink refuses. */
    private void emit(Sinks.Many<BenchExchange> sink, int from, int to) {
        try {
            go.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return;
        }
        for (int i = from; i < to; i++) {
            BenchExchange exchange = new BenchExchange(ids[order[i]], i, completion);
            for (Sinks.EmitResult result; (result = sink.tryEmitNext(exchange)) != Sinks.EmitResult.OK; ) {
                if (result != Sinks.EmitResult.FAIL_NON_SERIALIZED && result != Sinks.EmitResult.FAIL_OVERFLOW) {
                    throw new IllegalStateException("the sink refused exchange " + i + ": " + result);
                }
                Thread.yield();
            }
        }
    }

    @Benchmark
    public void dispatch() throws InterruptedException {
        wiring.start();
        go.countDown();
        completion.await(wiring::describe);
    }

    @TearDown(Level.Iteration)
    public void close() throws InterruptedException {
        cpu.print(variant, MESSAGES);
        for (Thread producer : threads) {
            producer.interrupt();
            producer.join(TimeUnit.SECONDS.toMillis(10));
        }
        wiring.close();
        completion.verify(variant);
        Throwable chainError = wiring.chainError();
        if (chainError != null) {
            throw new IllegalStateException("chain failed", chainError);
        }
    }
}
