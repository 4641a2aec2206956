package dev.lanes.cli.engine;

/** Burns a calibrated amount of CPU on the calling thread, like JMH's {@code Blackhole.consumeCPU}. */
final class CpuBurner {
    @SuppressWarnings("UnusedVariable") // written only so that the loop's result is used
    private static volatile long sink;

    private final double iterationsPerMicro;

    private CpuBurner(double iterationsPerMicro) {
        this.iterationsPerMicro = iterationsPerMicro;
    }

    /** Measures this machine (about 100 ms, single-threaded). */
    static CpuBurner calibrate() {
        long iterations = 1 << 16;
        spin(iterations * 8); // warm up the loop
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 5; round++) {
            long start = System.nanoTime();
            spin(iterations * 16);
            best = Math.min(best, System.nanoTime() - start);
        }
        return new CpuBurner(iterations * 16 * 1000.0 / Math.max(1, best));
    }

    void burn(long micros) {
        spin(Math.round(micros * iterationsPerMicro));
    }

    /** The mean cost of {@code burn(micros)}, measured over a few hundred calls. */
    double measureMicros(long micros) {
        int calls = 500;
        long start = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            burn(micros);
        }
        return (System.nanoTime() - start) / 1000.0 / calls;
    }

    private static void spin(long iterations) {
        long x = iterations;
        for (long i = 0; i < iterations; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        if (x == 42) {
            sink = x; // never true in practice; keeps the loop from being optimized away
        }
    }
}
