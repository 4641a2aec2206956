package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.MessageParallelism;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Checks what the timed scenarios take for granted, for every variant: each aggregate id's exchanges are handled one at
 * a time (a handler starts only after the previous one's Mono terminated) and in source order, and every exchange is
 * settled exactly once, its acknowledgements in source order per id too. Not timed; the benchmarks do not check this,
 * because a per-message check would be part of what they measure.
 *
 * <p>Traffic: 100,000 exchanges over 1,000 ids (about 100 per id, so lanes hold several), from {@link Feed#flux}. Two
 * handlers: {@code sync} returns {@code Mono.empty()}; {@code async} also returns Monos that terminate on another
 * thread, at once (every 2nd exchange, racing with the lane's own loop) or after 200 microseconds (every 50th).
 *
 * <p>Prints one line per variant and handler, and exits with status 1 if any check failed. Run:
 *
 * <pre>
 * java -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.OrderCheck
 * java -cp lanes-benchmarks/target/benchmarks.jar dev.lanes.benchmarks.OrderCheck JUC_BASELINE,KEYED
 * </pre>
 */
public final class OrderCheck implements BenchExchange.Settlement {
    private static final int IDS = 1_000;
    private static final int MESSAGES = 100_000;
    private static final Duration SHORT_DELAY = Duration.ofNanos(200_000);

    private final Map<AggregateId, Integer> index;
    private final AtomicIntegerArray running = new AtomicIntegerArray(IDS);
    private final AtomicIntegerArray lastStarted = new AtomicIntegerArray(IDS);
    private final AtomicIntegerArray lastSettled = new AtomicIntegerArray(IDS);
    private final AtomicIntegerArray settledTimes = new AtomicIntegerArray(MESSAGES);
    private final CountDownLatch remaining = new CountDownLatch(MESSAGES);
    private final AtomicLong overlaps = new AtomicLong();
    private final AtomicLong outOfOrder = new AtomicLong();
    private final AtomicLong settledOutOfOrder = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();

    private OrderCheck(AggregateId[] ids) {
        index = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            index.put(ids[i], i);
            lastStarted.set(i, -1);
            lastSettled.set(i, -1);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        List<Variant> variants = args.length == 0
                ? Arrays.asList(Variant.values())
                : Arrays.stream(args[0].split(",")).map(Variant::valueOf).toList();
        AggregateId[] ids = Feed.ids(Feed.ORDER, IDS, 11);
        int[] order = Feed.uniformOrder(IDS, MESSAGES, 12);
        boolean ok = true;
        for (Variant variant : variants) {
            for (boolean async : new boolean[] {false, true}) {
                ok &= new OrderCheck(ids).run(variant, async, ids, order);
            }
        }
        System.out.println(ok ? "order: all passed" : "order: FAILED");
        System.exit(ok ? 0 : 1);
    }

    private boolean run(Variant variant, boolean async, AggregateId[] ids, int[] order) throws InterruptedException {
        Wiring wiring = new Wiring(variant, MessageParallelism.DEFAULT_PARALLELISM, "order");
        boolean settled;
        try {
            wiring.wire(Feed.ORDER, Feed.flux(ids, order, this), handler(async));
            wiring.start();
            settled = remaining.await(60, TimeUnit.SECONDS);
        } finally {
            wiring.close();
        }
        return report(variant, async, settled, wiring.chainError());
    }

    /** Checks the start of each handler, and marks its end before the lane can see it. */
    private ExchangeHandler<Integer> handler(boolean async) {
        return exchange -> {
            int id = index.get(exchange.aggregateId());
            started(id, exchange.message());
            return reply(async, exchange.message()).doOnTerminate(() -> running.set(id, 0));
        };
    }

    private static Mono<Void> reply(boolean async, int sequence) {
        if (async && sequence % 50 == 0) {
            return Mono.delay(SHORT_DELAY).then();
        }
        if (async && sequence % 2 == 0) {
            return Mono.<Void>empty().subscribeOn(Schedulers.parallel());
        }
        return Mono.empty();
    }

    private void started(int id, int sequence) {
        if (running.getAndSet(id, 1) != 0) {
            overlaps.incrementAndGet();
        }
        if (lastStarted.getAndSet(id, sequence) >= sequence) {
            outOfOrder.incrementAndGet();
        }
    }

    @Override
    public void settled(BenchExchange exchange, @Nullable Throwable rejection) {
        if (rejection != null) {
            rejected.incrementAndGet();
        }
        int id = index.get(exchange.aggregateId());
        if (lastSettled.getAndSet(id, exchange.message()) >= exchange.message()) {
            settledOutOfOrder.incrementAndGet();
        }
        settledTimes.incrementAndGet(exchange.message());
        remaining.countDown();
    }

    private boolean report(Variant variant, boolean async, boolean settled, @Nullable Throwable error) {
        long notOnce = notSettledOnce();
        boolean ok = settled
                && error == null
                && notOnce == 0
                && overlaps.get() == 0
                && outOfOrder.get() == 0
                && settledOutOfOrder.get() == 0
                && rejected.get() == 0;
        System.out.printf(
                Locale.ROOT,
                "order: variant=%-22s handler=%-5s messages=%d ids=%d overlaps=%d outOfOrder=%d settledOutOfOrder=%d"
                        + " notSettledOnce=%d rejected=%d error=%s %s%n",
                variant,
                async ? "async" : "sync",
                MESSAGES,
                IDS,
                overlaps.get(),
                outOfOrder.get(),
                settledOutOfOrder.get(),
                notOnce,
                rejected.get(),
                error,
                ok ? "ok" : "FAILED");
        return ok;
    }

    private long notSettledOnce() {
        long n = 0;
        for (int i = 0; i < MESSAGES; i++) {
            if (settledTimes.get(i) != 1) {
                n++;
            }
        }
        return n;
    }
}
