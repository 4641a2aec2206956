package dev.lanes.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Counts settlements down to zero. A rejected exchange (the engine's lane bound, {@code LANE_FULL}) is settled too, and
 * counted: {@link #verify} prints how many, and fails the iteration when more than 0.1 % were rejected, because then
 * the variant did measurably less work than the others.
 */
final class Completion implements BenchExchange.Settlement {
    private final int expected;
    private final CountDownLatch remaining;
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicReference<@Nullable Throwable> firstRejection = new AtomicReference<>();

    Completion(int expected) {
        this.expected = expected;
        this.remaining = new CountDownLatch(expected);
    }

    @Override
    public void settled(BenchExchange exchange, @Nullable Throwable rejection) {
        if (rejection != null) {
            rejected.incrementAndGet();
            firstRejection.compareAndSet(null, rejection);
        }
        remaining.countDown();
    }

    void await() throws InterruptedException {
        await(() -> "");
    }

    /** Waits up to 2 minutes; on a stall, fails with {@code state} (the wiring's view of its dispatchers). */
    void await(java.util.function.Supplier<String> state) throws InterruptedException {
        if (!remaining.await(2, TimeUnit.MINUTES)) {
            String seen = state.get();
            System.out.printf(
                    "%nstalled: %d of %d not settled after 2 minutes; %s%n", remaining.getCount(), expected, seen);
            throw new IllegalStateException("not settled after 2 minutes: " + remaining.getCount() + " left; " + seen);
        }
    }

    /** Prints {@code rejected: variant=<v> n=<n> first=<reason>} if any was rejected; throws above 0.1 %. */
    void verify(Variant variant) {
        Throwable first = firstRejection.get();
        if (first == null) {
            return;
        }
        long n = rejected.get();
        System.out.printf("%nrejected: variant=%s n=%d of %d first=%s%n", variant, n, expected, first.getMessage());
        if (n * 1000 > expected) {
            throw new IllegalStateException(n + " of " + expected + " exchange(s) rejected; first: " + first, first);
        }
    }
}
