package dev.lanes.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * {@link TracingFloorBenchmark}'s three measures as CPU and allocation per command at fixed work, which a machine
 * shared with other jobs moves much less than throughput: the process's CPU time (every thread: the benchmark thread,
 * the lanes' workers, the batch processor's exporter, the collector and the compiler) and the bytes every thread
 * allocated, from before to after a fixed number of commands (or span pairs), the batch processor flushed at the end.
 * Each of {@code off}, {@code on}, {@code sdkSpans} (the SDK alone, on this one thread) runs after a warm-up of its own,
 * in rounds that alternate them.
 *
 * <pre>
 * java -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.TracingCpu [ROUNDS] [QUEUE]
 * </pre>
 */
public final class TracingCpu {
    private static final int WARMUP_INVOCATIONS = 3_000; // 192,000 commands
    private static final int INVOCATIONS = 4_000; // 256,000 commands
    private static final int SDK_WARMUP = 300_000;
    private static final int SDK_PAIRS = 500_000;

    private TracingCpu() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int queue = args.length > 1 ? Integer.parseInt(args[1]) : 32_768;
        System.out.printf(Locale.ROOT, "mode, us CPU per command, B per command (queue %d)%n", queue);
        for (int round = 0; round < rounds; round++) {
            command("off", queue);
            command("on", queue);
            sdk(queue);
        }
    }

    private static void command(String tracing, int queue) {
        TracingFloorBenchmark.Command command = new TracingFloorBenchmark.Command();
        command.tracing = tracing;
        command.queue = queue;
        command.start();
        try {
            for (int i = 0; i < WARMUP_INVOCATIONS; i++) {
                command.deposits().blockLast();
            }
            flush(command.export);
            long cpu = cpuNanos();
            long allocated = allocatedBytes();
            for (int i = 0; i < INVOCATIONS; i++) {
                command.deposits().blockLast();
            }
            flush(command.export);
            report("command " + tracing, cpuNanos() - cpu, allocatedBytes() - allocated, INVOCATIONS * 64L);
        } finally {
            command.stop();
        }
    }

    private static void sdk(int queue) {
        TracingFloorBenchmark.Sdk sdk = new TracingFloorBenchmark.Sdk();
        sdk.queue = queue;
        sdk.start();
        TracingFloorBenchmark.Cursor cursor = new TracingFloorBenchmark.Cursor();
        TracingFloorBenchmark benchmark = new TracingFloorBenchmark();
        try {
            long sink = 0;
            for (int i = 0; i < SDK_WARMUP; i++) {
                sink += benchmark.sdkSpans(sdk, cursor).hashCode();
            }
            flush(sdk.export);
            long cpu = cpuNanos();
            long allocated = allocatedBytes();
            for (int i = 0; i < SDK_PAIRS; i++) {
                sink += benchmark.sdkSpans(sdk, cursor).hashCode();
            }
            flush(sdk.export);
            report("sdkSpans" + (sink == 42 ? " " : ""), cpuNanos() - cpu, allocatedBytes() - allocated, SDK_PAIRS);
        } finally {
            sdk.stop();
        }
    }

    private static void flush(TracingFloorBenchmark.Export export) {
        if (export != null) {
            export.provider.forceFlush().join(30, TimeUnit.SECONDS);
        }
    }

    private static void report(String mode, long cpuNanos, long bytes, long commands) {
        System.out.printf(
                Locale.ROOT,
                "%s, %.2f, %d, load %.1f%n",
                mode,
                cpuNanos / 1_000.0 / commands,
                bytes / commands,
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }
}
