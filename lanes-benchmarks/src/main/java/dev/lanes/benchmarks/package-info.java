/**
 * Benchmarks of the lane engine ({@link dev.lanes.dispatch.AggregateDispatcher} with {@code HASHED} and {@code KEYED}
 * lanes) against the literal Reactor chain it replaces, {@code groupBy(key).flatMap(g -> g.publishOn(s).concatMap(h))}.
 *
 * <p>JMH benchmarks: {@link dev.lanes.benchmarks.LaneThroughputBenchmark}, {@link
 * dev.lanes.benchmarks.CpuHandlerBenchmark}, {@link dev.lanes.benchmarks.ManyTypesBenchmark}; the open-loop latency
 * harness {@link dev.lanes.benchmarks.HotKeyLatency} has a {@code main}. Every variant is wired by {@link
 * dev.lanes.benchmarks.Wiring}, so they differ only in the dispatch path. Results: {@code docs/benchmarks.md}.
 */
@NullMarked
package dev.lanes.benchmarks;

import org.jspecify.annotations.NullMarked;
