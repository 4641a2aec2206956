package dev.lanes.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Process CPU time over one iteration, printed per exchange: on a shared machine CPU time per exchange is steadier than
 * wall-clock time, because time spent runnable but descheduled (other tenants) is not in it. It includes every thread
 * of the fork (JIT compiler and GC threads too), so it is an upper bound of the dispatch cost, alike for all variants.
 */
final class CpuMeter {
    private final long startNanos = processCpuNanos();

    static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return -1;
    }

    /** Prints {@code cpu: variant=<v> ns/msg=<n>} for the {@code messages} handled since this meter was made. */
    void print(Variant variant, long messages) {
        long end = processCpuNanos();
        if (startNanos < 0 || end < 0) {
            return;
        }
        System.out.printf(
                Locale.ROOT, "%ncpu: variant=%s ns/msg=%.1f%n", variant, (end - startNanos) / (double) messages);
    }
}
