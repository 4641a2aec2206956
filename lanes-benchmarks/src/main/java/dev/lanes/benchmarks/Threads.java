package dev.lanes.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;

/** Live thread counts, for the thread-footprint figures. */
final class Threads {
    private Threads() {}

    /** Live threads whose name starts with {@code prefix}. */
    static int count(String prefix) {
        int n = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.isAlive() && thread.getName().startsWith(prefix)) {
                n++;
            }
        }
        return n;
    }

    /**
     * Live threads whose name starts with {@code prefix}, per pool: a pool is the name without its {@code -<n>} suffix,
     * e.g. {@code bench-type00} for {@code bench-type00-1} and {@code bench-type00-2}.
     */
    static Map<String, Integer> perPool(String prefix) {
        Map<String, Integer> pools = new TreeMap<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            String name = thread.getName();
            if (thread.isAlive() && name.startsWith(prefix)) {
                pools.merge(name.replaceFirst("-\\d+$", ""), 1, Integer::sum);
            }
        }
        return pools;
    }

    /** Every live thread of the JVM (ThreadMXBean), JMH's and the JVM's own included. */
    static int live() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** Waits until no live thread's name starts with {@code prefix}, so the next run starts from a clean slate. */
    static void awaitGone(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (count(prefix) > 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        count(prefix) + " thread(s) named " + prefix + "* still alive after " + timeout);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
