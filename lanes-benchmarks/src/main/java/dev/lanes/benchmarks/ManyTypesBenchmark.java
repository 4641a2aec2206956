package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageParallelism;
import java.lang.management.ManagementFactory;
import java.util.Map;
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
 * Many aggregate types: 20 types x 500 ids, 50,000 exchanges per type (1,000,000 in all), handler {@code Mono.empty()};
 * one dispatcher (or chain) per type, all started together, each fed by its own source.
 *
 * <ul>
 *   <li>{@code REACTOR_CHAIN}: one {@code Schedulers.newParallel(.., W)} per type, as the original.
 *   <li>{@code HASHED}, {@code KEYED}: one {@code AggregateSchedulerSupplier} shared by the 20 dispatchers; it
 *       creates one scheduler of W workers per type.
 *   <li>{@code HASHED_SHARED_POOL}, {@code KEYED_SHARED_POOL}: the engine on an {@code AggregateSchedulers.sharedPool}: a scheduler per type, all views of one pool of W workers,
 *       to show what a shared pool does to the same workload.
 *   <li>{@code JUC_BASELINE}: the hand-written {@link JucBaseline}, one fixed pool of W threads for all 20 types, as
 *       the outside review wrote it. Compare its threads with the shared pools', not with the others'.
 * </ul>
 *
 * <p>Score: nanoseconds per exchange (single shot per iteration, wiring not measured). Thread footprint: after each
 * iteration, before the wiring is closed, the teardown prints a line {@code threads: ...}: {@code schedulerWorkers},
 * the variant's live worker threads (named {@code bench-*}, scheduler or pool); {@code pools}, how many pools they
 * belong to (the name without its {@code -<n>}); {@code maxPerPool}, the largest pool; {@code bound}, W. The contract
 * is at most W worker threads per aggregate type: {@code maxPerPool <= bound}, with 20 pools for a scheduler per type
 * and 1 pool shared by all types otherwise. Then {@code live}, all live JVM threads (ThreadMXBean, JMH's own
 * included), and {@code peak}, their peak since the iteration's setup.
 *
 * <p>Run, from the repository root, after building the module (see the package documentation):
 *
 * <pre>
 * java -jar lanes-benchmarks/target/benchmarks.jar ManyTypesBenchmark -f 1 -wi 2 -i 4
 * java -jar lanes-benchmarks/target/benchmarks.jar ManyTypesBenchmark -f 1 -wi 2 -i 4 -prof gc
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
@OperationsPerInvocation(ManyTypesBenchmark.TYPES * ManyTypesBenchmark.MESSAGES_PER_TYPE)
@Warmup(iterations = 3)
@Measurement(iterations = 5)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class ManyTypesBenchmark {
    static final int TYPES = 20;
    static final int IDS_PER_TYPE = 500;
    static final int MESSAGES_PER_TYPE = 50_000;

    @Param({"REACTOR_CHAIN", "JUC_BASELINE", "HASHED", "KEYED", "HASHED_SHARED_POOL", "KEYED_SHARED_POOL"})
    public Variant variant = Variant.KEYED;

    private final NamedAggregate[] types = new NamedAggregate[TYPES];
    private final AggregateId[][] ids = new AggregateId[TYPES][];
    private final int[][] orders = new int[TYPES][];
    private Completion completion = new Completion(0);
    private Wiring wiring = new Wiring(Variant.REACTOR_CHAIN, 1, "unused");
    private CpuMeter cpu = new CpuMeter();

    @Setup(Level.Trial)
    public void traffic() {
        for (int t = 0; t < TYPES; t++) {
            types[t] = NamedAggregate.of("bench", String.format("type%02d", t));
            ids[t] = Feed.ids(types[t], IDS_PER_TYPE, 100 + t);
            orders[t] = Feed.uniformOrder(IDS_PER_TYPE, MESSAGES_PER_TYPE, 200 + t);
        }
    }

    @Setup(Level.Iteration)
    public void wire() {
        completion = new Completion(TYPES * MESSAGES_PER_TYPE);
        wiring = new Wiring(variant, MessageParallelism.DEFAULT_PARALLELISM, "bench");
        for (int t = 0; t < TYPES; t++) {
            wiring.wire(types[t], Feed.flux(ids[t], orders[t], completion), exchange -> Mono.empty());
        }
        ManagementFactory.getThreadMXBean().resetPeakThreadCount();
        cpu = new CpuMeter();
    }

    @Benchmark
    public void dispatch() throws InterruptedException {
        wiring.start();
        completion.await(wiring::describe);
    }

    /** The {@code threads:} line; the workers are still alive, the wiring is closed after it. */
    private void printThreads() {
        Map<String, Integer> pools = Threads.perPool("bench-");
        System.out.printf(
                "%nthreads: variant=%s schedulerWorkers=%d pools=%d maxPerPool=%d bound=%d live=%d peak=%d%n",
                variant,
                pools.values().stream().mapToInt(Integer::intValue).sum(),
                pools.size(),
                pools.values().stream().mapToInt(Integer::intValue).max().orElse(0),
                Wiring.WORKERS,
                Threads.live(),
                ManagementFactory.getThreadMXBean().getPeakThreadCount());
    }

    @TearDown(Level.Iteration)
    public void close() {
        cpu.print(variant, (long) TYPES * MESSAGES_PER_TYPE);
        printThreads();
        wiring.close();
        completion.verify(variant);
        Throwable chainError = wiring.chainError();
        if (chainError != null) {
            throw new IllegalStateException("chain failed", chainError);
        }
    }
}
