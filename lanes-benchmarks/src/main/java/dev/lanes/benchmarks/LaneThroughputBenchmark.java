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
import reactor.core.publisher.Mono;

/**
 * Dispatch overhead: 1,000,000 exchanges over 10,000 aggregate ids (uniform, UUID-shaped), handler {@code
 * Mono.empty()}, for the Reactor chain, the hand-written {@link JucBaseline}, the engine with {@code HASHED} lanes and
 * the engine with {@code KEYED} lanes, all with G = {@link MessageParallelism#DEFAULT_PARALLELISM} and {@link
 * Wiring#WORKERS} worker threads.
 *
 * <p>One operation = one exchange. Each iteration is a single shot: a fresh dispatcher (or chain and scheduler) is
 * wired in the iteration's setup, not measured; the measured part starts demand and waits until every exchange was
 * acknowledged. The score is nanoseconds per exchange; messages per second = 1e9 / score.
 *
 * <p>Run, from the repository root, after building the module (see the package documentation):
 *
 * <pre>
 * java -jar lanes-benchmarks/target/benchmarks.jar LaneThroughputBenchmark -f 1 -wi 2 -i 4
 * java -jar lanes-benchmarks/target/benchmarks.jar LaneThroughputBenchmark -f 1 -wi 2 -i 4 -prof gc
 * mkdir -p lanes-benchmarks/results
 * java -jar lanes-benchmarks/target/benchmarks.jar LaneThroughputBenchmark -f 1 -wi 2 -i 4 \
 *     -rf json -rff lanes-benchmarks/results/throughput.json
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
@OperationsPerInvocation(LaneThroughputBenchmark.MESSAGES)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class LaneThroughputBenchmark {
    static final int MESSAGES = 1_000_000;
    static final int IDS = 10_000;

    @Param({"REACTOR_CHAIN", "JUC_BASELINE", "HASHED", "KEYED"})
    public Variant variant = Variant.KEYED;

    private AggregateId[] ids = new AggregateId[0];
    private int[] order = new int[0];
    private Completion completion = new Completion(0);
    private Wiring wiring = new Wiring(Variant.REACTOR_CHAIN, 1, "unused");
    private CpuMeter cpu = new CpuMeter();

    @Setup(Level.Trial)
    public void traffic() {
        ids = Feed.ids(Feed.ORDER, IDS, 1);
        order = Feed.uniformOrder(IDS, MESSAGES, 2);
    }

    @Setup(Level.Iteration)
    public void wire() {
        completion = new Completion(MESSAGES);
        wiring = new Wiring(variant, MessageParallelism.DEFAULT_PARALLELISM, "bench");
        wiring.wire(Feed.ORDER, Feed.flux(ids, order, completion), exchange -> Mono.empty());
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
