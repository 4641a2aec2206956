package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageParallelism;
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
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Mono;

/**
 * A CPU-bound handler: 50,000 exchanges over 10,000 aggregate ids, each handler burning {@code cpuTokens} of {@link
 * Blackhole#consumeCPU} (the default, 10,000 tokens, is about 20 microseconds on the machine in docs/benchmarks.md; the
 * trial setup prints the measured cost, so check it on another machine). Otherwise as {@link LaneThroughputBenchmark}:
 * fresh wiring per single-shot iteration, score in nanoseconds per exchange. With {@code W} workers the floor is {@code
 * cost / W} per exchange.
 *
 * <p>{@link Variant#DIRECT_LOOP} is the reference: the benchmark thread calls the same handler on the same messages in
 * a plain loop, alone. Its score divided by a variant's score is that variant's speed-up over a single-thread direct
 * call loop (at most W; the dispatching variants also use the benchmark thread, as their source's emitter).
 *
 * <p>Run, from the repository root, after building the module (see the package documentation):
 *
 * <pre>
 * java -jar lanes-benchmarks/target/benchmarks.jar CpuHandlerBenchmark -f 1 -wi 2 -i 4
 * java -jar lanes-benchmarks/target/benchmarks.jar CpuHandlerBenchmark -f 1 -wi 2 -i 4 -prof gc
 * </pre>
 *
 * <p>Allocation per message: add {@code -prof gc} and read {@code dispatch:gc.alloc.rate.norm}, bytes per operation,
 * i.e. per exchange. JMH takes it from {@code ThreadMXBean.getTotalThreadAllocatedBytes} (JDK 14 and later), which
 * counts ended threads too, so the workers' allocation is in it although the teardown ends them. So are the
 * iteration's setup and teardown, which the time leaves out.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@OperationsPerInvocation(CpuHandlerBenchmark.MESSAGES)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class CpuHandlerBenchmark {
    static final int MESSAGES = 50_000;
    static final int IDS = 10_000;

    @Param({"DIRECT_LOOP", "REACTOR_CHAIN", "JUC_BASELINE", "HASHED", "KEYED"})
    public Variant variant = Variant.KEYED;

    @Param("10000")
    public long cpuTokens = 10_000;

    private AggregateId[] ids = new AggregateId[0];
    private int[] order = new int[0];
    private Completion completion = new Completion(0);
    private Wiring wiring = new Wiring(Variant.REACTOR_CHAIN, 1, "unused");
    private CpuMeter cpu = new CpuMeter();

    @Setup(Level.Trial)
    public void traffic() {
        ids = Feed.ids(Feed.ORDER, IDS, 1);
        order = Feed.uniformOrder(IDS, MESSAGES, 2);
        System.out.printf("handler cost: %.1f us per call (%d tokens)%n", measureMicros(cpuTokens), cpuTokens);
    }

    /** The mean cost of one handler's burn, after a short warm-up, single-threaded. */
    static double measureMicros(long tokens) {
        for (int i = 0; i < 20_000; i++) {
            Blackhole.consumeCPU(tokens);
        }
        int calls = 20_000;
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            Blackhole.consumeCPU(tokens);
        }
        return (System.nanoTime() - start) / 1_000.0 / calls;
    }

    @Setup(Level.Iteration)
    public void wire() {
        completion = new Completion(MESSAGES);
        wiring = new Wiring(variant, MessageParallelism.DEFAULT_PARALLELISM, "bench");
        long tokens = cpuTokens;
        wiring.wire(Feed.ORDER, Feed.flux(ids, order, completion), exchange -> {
            Blackhole.consumeCPU(tokens);
            return Mono.empty();
        });
        cpu = new CpuMeter();
    }

    @Benchmark
    public void dispatch() throws InterruptedException {
        wiring.start();
        completion.await(wiring::describe);
    }

    @TearDown(Level.Iteration)
    public void close() {
        cpu.print(variant, MESSAGES);
        wiring.close();
        completion.verify(variant);
        Throwable chainError = wiring.chainError();
        if (chainError != null) {
            throw new IllegalStateException("chain failed", chainError);
        }
    }
}
