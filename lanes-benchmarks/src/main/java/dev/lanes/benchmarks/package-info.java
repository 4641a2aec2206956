/**
 * Benchmarks of the lane engine ({@link dev.lanes.dispatch.AggregateDispatcher} with {@code HASHED} and {@code KEYED}
 * lanes) against the literal Reactor chain it replaces, {@code groupBy(key).flatMap(g -> g.publishOn(s).concatMap(h))},
 * and against a hand-written {@code java.util.concurrent} baseline, {@link dev.lanes.benchmarks.JucBaseline}.
 *
 * <p>JMH benchmarks: {@link dev.lanes.benchmarks.LaneThroughputBenchmark}, {@link
 * dev.lanes.benchmarks.UserSinkBenchmark} (the same traffic emitted by producer threads into a unicast sink, as a user
 * feeds the engine), {@link dev.lanes.benchmarks.CpuHandlerBenchmark}, {@link dev.lanes.benchmarks.ManyTypesBenchmark},
 * and tracing's floor on the command path, {@link dev.lanes.benchmarks.TracingFloorBenchmark} (with {@link
 * dev.lanes.benchmarks.TracingCpu}, its measures at fixed work); the open-loop latency
 * harness {@link dev.lanes.benchmarks.HotKeyLatency} and the per-id order check {@link
 * dev.lanes.benchmarks.OrderCheck} have a {@code main}. Every variant is wired by {@link dev.lanes.benchmarks.Wiring},
 * so they differ only in the dispatch path. Each class's Javadoc has its run command. Results: {@code
 * docs/benchmarks.md}.
 *
 * <p>Build the module alone, from the repository root, against the {@code lanes-core} snapshot in the local Maven
 * repository ({@code lanes-benchmarks/target/benchmarks.jar}; nothing runs):
 *
 * <pre>
 * mvn -B -q -f lanes-benchmarks/pom.xml spotless:apply package -DskipTests
 * </pre>
 */
@NullMarked
package dev.lanes.benchmarks;

import org.jspecify.annotations.NullMarked;
