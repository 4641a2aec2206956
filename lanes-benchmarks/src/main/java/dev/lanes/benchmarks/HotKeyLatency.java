package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.MessageParallelism;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Open-loop latency with one hot aggregate id: does a hot, sometimes slow id hurt the other ids?
 *
 * <p>Traffic: 10,000 aggregate ids (UUID-shaped). The other ids receive {@code otherRate} messages per second in all,
 * uniformly. In a run <em>with</em> the hot id, it receives {@code hotRate} messages per second on top, and every
 * {@code slowEvery}-th of them (1 % by default) waits {@code slowMillis} (2 ms): with {@code wait=delay} as {@code
 * Mono.delay} (non-blocking: the lane waits, the worker thread does not), with {@code wait=sleep} as a sleep inside the
 * handler ({@code LockSupport.parkNanos}, like {@code Thread.sleep}: it blocks a worker, what the original's handlers
 * may do), with {@code wait=spin} as a busy loop inside the handler (CPU-bound: it blocks a worker and uses its core).
 * All other handlers are {@code Mono.empty()}. The reference run has the same traffic for the other ids and no hot id.
 *
 * <p>Messages are emitted into a {@code Sinks.many().unicast().onBackpressureBuffer()} by one producer thread on a
 * fixed schedule (open loop, independent of how fast the variant drains). A message's latency runs from the instant it
 * was <em>due</em> on that schedule to its acknowledgement, so producer lateness and queueing before the dispatcher are
 * included (no coordinated omission). Latencies of the warm-up seconds are discarded; the others' and the hot id's are
 * recorded in separate HdrHistograms. The others' latency is also recorded from the instant the producer actually
 * emitted the message ("from emit"): on a busy machine the producer thread is itself descheduled at times, and this
 * second figure leaves that lateness out. A rejected exchange (lane full) is counted, not timed.
 *
 * <p>Runs every variant with and without the hot id, {@code runs} times, interleaved, in one JVM; prints every run and
 * then the medians over runs. Run:
 *
 * <pre>
 * java -Xms2g -Xmx2g -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.HotKeyLatency
 * java -Xms2g -Xmx2g -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.HotKeyLatency \
 *     --runs=5 --seconds=5 --warmup=2 --otherRate=40000 --hotRate=20000 --slowEvery=100 --slowMillis=2 --wait=delay
 * java -Xms2g -Xmx2g -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.HotKeyLatency --runs=3 --hotRate=60000
 * java -Xms2g -Xmx2g -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.HotKeyLatency --runs=3 --wait=sleep
 * </pre>
 *
 * <p>A CPU-bound hot id: 1 % of about 10,000 msgs/s, every one of its messages spinning 2 ms on its worker (0.2 of a
 * core in all):
 *
 * <pre>
 * java -Xms2g -Xmx2g -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.HotKeyLatency \
 *     --runs=5 --seconds=5 --warmup=2 --otherRate=9900 --hotRate=100 --slowEvery=1 --slowMillis=2 --wait=spin
 * </pre>
 *
 * <p>Other options: {@code --ids}, {@code --parallelism} (G), {@code
 * --variants=REACTOR_CHAIN,JUC_BASELINE,HASHED,KEYED} (the default; {@code DIRECT_LOOP} has no dispatcher and is
 * refused). Allocation is not measured here: JMH's {@code -prof gc} needs a JMH benchmark.
 */
public final class HotKeyLatency {
    private static final long SEED = 7;

    enum Wait {
        DELAY,
        SLEEP,
        SPIN
    }

    /** The harness's settings, from {@code --name=value} arguments; the defaults are the documented scenario. */
    static final class Options {
        int runs = 5;
        double warmupSeconds = 2;
        double seconds = 5;
        int otherRate = 40_000;
        int hotRate = 20_000;
        int ids = 10_000;
        int slowEvery = 100;
        long slowMillis = 2;
        Wait waitMode = Wait.DELAY;
        int parallelism = MessageParallelism.DEFAULT_PARALLELISM;
        List<Variant> variants = List.of(Variant.REACTOR_CHAIN, Variant.JUC_BASELINE, Variant.HASHED, Variant.KEYED);

        static Options parse(String[] args) {
            Options o = new Options();
            for (String arg : args) {
                String[] kv = arg.replaceFirst("^--", "").split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("expected --name=value: " + arg);
                }
                String v = kv[1].trim();
                switch (kv[0]) {
                    case "runs" -> o.runs = Integer.parseInt(v);
                    case "warmup" -> o.warmupSeconds = Double.parseDouble(v);
                    case "seconds" -> o.seconds = Double.parseDouble(v);
                    case "otherRate" -> o.otherRate = Integer.parseInt(v);
                    case "hotRate" -> o.hotRate = Integer.parseInt(v);
                    case "ids" -> o.ids = Integer.parseInt(v);
                    case "slowEvery" -> o.slowEvery = Integer.parseInt(v);
                    case "slowMillis" -> o.slowMillis = Long.parseLong(v);
                    case "wait" -> o.waitMode = Wait.valueOf(v.toUpperCase(Locale.ROOT));
                    case "parallelism" -> o.parallelism = Integer.parseInt(v);
                    case "variants" ->
                        o.variants = Arrays.stream(v.split(","))
                                .map(name -> Variant.valueOf(name.trim().toUpperCase(Locale.ROOT)))
                                .toList();
                    default -> throw new IllegalArgumentException("unknown option: " + arg);
                }
            }
            if (o.variants.contains(Variant.DIRECT_LOOP)) {
                throw new IllegalArgumentException("DIRECT_LOOP has no dispatcher: the producer thread would handle");
            }
            return o;
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "runs=%d warmup=%.1fs seconds=%.1fs otherRate=%d/s hotRate=%d/s ids=%d slowEvery=%d"
                            + " slowMillis=%d wait=%s parallelism=%d variants=%s",
                    runs,
                    warmupSeconds,
                    seconds,
                    otherRate,
                    hotRate,
                    ids,
                    slowEvery,
                    slowMillis,
                    waitMode,
                    parallelism,
                    variants);
        }
    }

    /** One run's figures; latencies in microseconds. */
    record Result(
            Variant variant,
            boolean withHot,
            int run,
            long otherCount,
            double otherP50,
            double otherP99,
            double otherP999,
            double otherMax,
            double otherEmitP99,
            double otherEmitP999,
            long hotCount,
            double hotP99,
            long rejectedOther,
            long rejectedHot,
            long unsettled,
            double emitLagP99) {}

    private final Options options;
    private final AggregateId[] ids;

    private HotKeyLatency(Options options) {
        this.options = options;
        this.ids = Feed.ids(Feed.ORDER, options.ids, SEED);
    }

    public static void main(String[] args) throws InterruptedException {
        Options options = Options.parse(args);
        System.out.printf(
                "java %s (%s), %d processors, %d workers per scheduler, G=%d%n%s%n%n",
                System.getProperty("java.version"),
                System.getProperty("java.vm.name"),
                Runtime.getRuntime().availableProcessors(),
                Wiring.WORKERS,
                options.parallelism,
                options);
        HotKeyLatency harness = new HotKeyLatency(options);
        List<Result> results = new ArrayList<>();
        System.out.println(header());
        for (int run = 1; run <= options.runs; run++) {
            for (Variant variant : options.variants) {
                for (boolean withHot : new boolean[] {false, true}) {
                    Result result = harness.runOnce(variant, withHot, run);
                    results.add(result);
                    System.out.println(row(result));
                }
            }
        }
        System.out.println();
        System.out.println("Medians over " + options.runs + " runs (latency in microseconds, due time to ack):");
        summary(options, results);
        isolation(options, results);
        System.exit(0);
    }

    private Result runOnce(Variant variant, boolean withHot, int run) throws InterruptedException {
        SplittableRandom random = new SplittableRandom(SEED * 1_000 + run);
        Recorder others = new Recorder(3);
        Recorder hot = new Recorder(3);
        Recorder othersFromEmit = new Recorder(3);
        Histogram emitLag = new Histogram(3);
        AtomicLong settled = new AtomicLong();
        AtomicLong rejectedOther = new AtomicLong();
        AtomicLong rejectedHot = new AtomicLong();

        double rate = options.otherRate + (withHot ? options.hotRate : 0);
        double hotShare = withHot ? options.hotRate / rate : 0;
        double intervalNanos = 1e9 / rate;
        long warmupCount = (long) (rate * options.warmupSeconds);
        long total = warmupCount + (long) (rate * options.seconds);
        long start = System.nanoTime() + 20_000_000;
        long measureFrom = start + (long) (warmupCount * intervalNanos);

        BenchExchange.Settlement settlement = (exchange, rejection) -> {
            if (exchange.intendedAt >= measureFrom) {
                if (rejection != null) {
                    (exchange.hot ? rejectedHot : rejectedOther).incrementAndGet();
                } else {
                    long now = System.nanoTime();
                    long micros = Math.max(1, (now - exchange.intendedAt) / 1_000);
                    (exchange.hot ? hot : others).recordValue(micros);
                    if (!exchange.hot) {
                        othersFromEmit.recordValue(Math.max(1, (now - exchange.emittedAt) / 1_000));
                    }
                }
            }
            settled.incrementAndGet();
        };
        Duration slow = Duration.ofMillis(options.slowMillis);
        ExchangeHandler<Integer> handler = exchange -> {
            if (!((BenchExchange) exchange).slow) {
                return Mono.empty();
            }
            return switch (options.waitMode) {
                case DELAY -> Mono.delay(slow).then();
                case SLEEP -> Mono.fromRunnable(() -> LockSupport.parkNanos(slow.toNanos()));
                case SPIN -> Mono.fromRunnable(() -> spin(slow.toNanos()));
            };
        };

        Sinks.Many<BenchExchange> sink = Sinks.many().unicast().onBackpressureBuffer();
        Wiring wiring = new Wiring(variant, options.parallelism, "hotkey");
        long unsettled;
        try {
            wiring.wire(Feed.ORDER, sink.asFlux(), handler);
            wiring.start();
            int hotSeen = 0;
            for (long k = 0; k < total; k++) {
                long intended = start + (long) (k * intervalNanos);
                long now = System.nanoTime();
                if (intended - now > 0) {
                    LockSupport.parkNanos(intended - now);
                    now = System.nanoTime();
                }
                if (k >= warmupCount) {
                    emitLag.recordValue(Math.max(0, now - intended) / 1_000);
                }
                boolean isHot = withHot && random.nextDouble() < hotShare;
                AggregateId id = isHot ? ids[0] : ids[1 + random.nextInt(ids.length - 1)];
                boolean isSlow = isHot && ++hotSeen % options.slowEvery == 0;
                BenchExchange exchange = new BenchExchange(id, (int) k, intended, isHot, isSlow, settlement);
                exchange.emittedAt = System.nanoTime();
                Sinks.EmitResult emitted = sink.tryEmitNext(exchange);
                if (emitted.isFailure()) {
                    throw new IllegalStateException("emit failed: " + emitted);
                }
            }
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (settled.get() < total && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(5_000_000);
            }
            unsettled = total - settled.get();
        } finally {
            sink.tryEmitComplete();
            wiring.close();
        }
        Histogram o = others.getIntervalHistogram();
        Histogram h = hot.getIntervalHistogram();
        Histogram e = othersFromEmit.getIntervalHistogram();
        return new Result(
                variant,
                withHot,
                run,
                o.getTotalCount(),
                o.getValueAtPercentile(50),
                o.getValueAtPercentile(99),
                o.getValueAtPercentile(99.9),
                o.getMaxValue(),
                e.getValueAtPercentile(99),
                e.getValueAtPercentile(99.9),
                h.getTotalCount(),
                h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99),
                rejectedOther.get(),
                rejectedHot.get(),
                unsettled,
                emitLag.getValueAtPercentile(99));
    }

    /** Keeps the calling thread busy for {@code nanos}, without yielding it. */
    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            // busy
        }
    }

    private static String header() {
        return String.format(
                "%-14s %-6s %3s %9s %8s %8s %9s %9s %9s %10s %8s %9s %8s %8s %9s %8s",
                "variant",
                "hot",
                "run",
                "others",
                "p50",
                "p99",
                "p99.9",
                "max",
                "emit p99",
                "emit p99.9",
                "hot n",
                "hot p99",
                "rej oth",
                "rej hot",
                "unsettled",
                "lag p99");
    }

    private static String row(Result r) {
        return String.format(
                Locale.ROOT,
                "%-14s %-6s %3d %9d %8.0f %8.0f %9.0f %9.0f %9.0f %10.0f %8d %9.0f %8d %8d %9d %8.0f",
                r.variant,
                r.withHot ? "yes" : "no",
                r.run,
                r.otherCount,
                r.otherP50,
                r.otherP99,
                r.otherP999,
                r.otherMax,
                r.otherEmitP99,
                r.otherEmitP999,
                r.hotCount,
                r.hotP99,
                r.rejectedOther,
                r.rejectedHot,
                r.unsettled,
                r.emitLagP99);
    }

    private static void summary(Options options, List<Result> results) {
        System.out.printf(
                "%-14s %-4s %8s %8s %9s %9s %9s %10s %9s %8s %8s %9s %8s %14s %12s %15s%n",
                "variant",
                "hot",
                "p50",
                "p99",
                "p99.9",
                "max",
                "emit p99",
                "emit p99.9",
                "hot p99",
                "rej oth",
                "rej hot",
                "unsettled",
                "lag p99",
                "p99 hot/no-hot",
                "p99 / chain",
                "emit hot/no-hot");
        for (boolean withHot : new boolean[] {false, true}) {
            for (Variant variant : options.variants) {
                double p99 = median(results, variant, withHot, Result::otherP99);
                double reference = median(results, variant, false, Result::otherP99);
                double chain = median(results, Variant.REACTOR_CHAIN, withHot, Result::otherP99);
                double emitP99 = median(results, variant, withHot, Result::otherEmitP99);
                double emitReference = median(results, variant, false, Result::otherEmitP99);
                System.out.printf(
                        Locale.ROOT,
                        "%-14s %-4s %8.0f %8.0f %9.0f %9.0f %9.0f %10.0f %9.0f %8.0f %8.0f %9.0f %8.0f %14.2f %12.2f %15.2f%n",
                        variant,
                        withHot ? "yes" : "no",
                        median(results, variant, withHot, Result::otherP50),
                        p99,
                        median(results, variant, withHot, Result::otherP999),
                        median(results, variant, withHot, Result::otherMax),
                        median(results, variant, withHot, Result::otherEmitP99),
                        median(results, variant, withHot, Result::otherEmitP999),
                        median(results, variant, withHot, Result::hotP99),
                        median(results, variant, withHot, r -> r.rejectedOther),
                        median(results, variant, withHot, r -> r.rejectedHot),
                        median(results, variant, withHot, r -> r.unsettled),
                        median(results, variant, withHot, Result::emitLagP99),
                        p99 / reference,
                        p99 / chain,
                        emitP99 / emitReference);
            }
        }
    }

    /** One line per variant: the other ids' p99 without and with the hot id, medians over runs. */
    private static void isolation(Options options, List<Result> results) {
        System.out.println();
        for (Variant variant : options.variants) {
            double without = median(results, variant, false, Result::otherP99);
            double with = median(results, variant, true, Result::otherP99);
            System.out.printf(
                    Locale.ROOT,
                    "others p99: variant=%s without=%.0f with=%.0f with/without=%.2f;"
                            + " from emit: without=%.0f with=%.0f%n",
                    variant,
                    without,
                    with,
                    with / without,
                    median(results, variant, false, Result::otherEmitP99),
                    median(results, variant, true, Result::otherEmitP99));
        }
    }

    private static double median(
            List<Result> results, Variant variant, boolean withHot, ToDoubleFunction<Result> metric) {
        double[] values = results.stream()
                .filter(r -> r.variant == variant && r.withHot == withHot)
                .mapToDouble(metric)
                .sorted()
                .toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }
}
