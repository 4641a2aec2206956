package dev.lanes.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.openjdk.jcstress.infra.results.IIIIIII_Result;
import org.reactivestreams.Subscription;

/**
 * The state of the checks of an intake's opening racing with a worker's releases ({@link IntakeStartVsRelease}, {@link
 * IntakeSubscribeVsRelease}, {@link IntakeStartVsSubscribeVsRelease}): demand opens when the intake is both subscribed
 * and started ({@code onSubscribe}, {@code start(elsewhere)}, either order, either thread), and the thread that opens it
 * makes the first request. The source is synchronous, as {@code Flux.range} is: it emits inside {@code request(n)}, on
 * the requesting thread, up to {@value #SUPPLY} exchanges in all. A worker takes each exchange once the producer side
 * has published it and frees its slot ({@code release(1, false)}), so its releases can land while the first request is
 * still running: the requests that come due then continue on {@code elsewhere} (a queue the worker runs, and the
 * arbiter for what is left) or on the worker itself, and the source may emit on the worker's thread while another
 * thread holds the producer side.
 *
 * <p>The budget is {@value #MAX_QUEUED} (batches of 1: every freed slot is requested again). The source checks at each
 * request that it was never granted more than the budget plus the slots freed before that request (the credits the
 * intake can hold), so outstanding demand never exceeds the budget.
 *
 * <p>Results ({@link #arbiter}): r1 the first request's demand (the budget). r2 1 if a request granted more than the
 * budget plus the slots freed. r3 demand requested in all less the slots freed, once the arbiter ran what was left on
 * {@code elsewhere} (the budget again: no credit lost or doubled). r4 1 if two {@code request} calls overlapped. r5
 * exchanges emitted and never published to the worker. r6 slots the worker freed (0 to 2; 0 if it gave up waiting
 * before the source emitted). r7 1 if the opener handed the requests that came due during its first one to {@code
 * elsewhere} (a release landed while the first request ran).
 */
final class IntakeOpening {
    static final int MAX_QUEUED = 2;
    static final int SUPPLY = 4;
    /** A bound on the worker's wait for the source's exchanges, so an iteration never hangs. */
    private static final int MAX_SPINS = 1 << 14;

    private final AtomicInteger freed = new AtomicInteger();
    private final AtomicInteger ranElsewhere = new AtomicInteger();
    private final Queue<Runnable> elsewhere = new ConcurrentLinkedQueue<>();
    private final Publishing producer = new Publishing();
    private final Intake<String> intake = new Intake<>(producer, error -> {}, Runnable::run, MAX_QUEUED);
    private final SynchronousSource source = new SynchronousSource(intake, freed);

    /** The source's {@code onSubscribe}. */
    void subscribe() {
        intake.onSubscribe(source);
    }

    /** The dispatcher's {@code start}: requests after the first continue on {@code elsewhere}. */
    void start() {
        intake.start(elsewhere::offer);
    }

    /** Frees the slot of each exchange published, up to the budget, and runs what came due on {@code elsewhere}. */
    void work() {
        int released = 0;
        for (int spins = 0; released < MAX_QUEUED && spins < MAX_SPINS; spins++) {
            if (producer.published.poll() != null) {
                released++;
                freed.incrementAndGet(); // before the release: the credit exists from here on
                intake.release(1, false);
            } else if (!runElsewhere()) {
                Thread.onSpinWait();
            }
        }
        runElsewhere();
    }

    void arbiter(IIIIIII_Result r) {
        runElsewhere();
        r.r1 = (int) source.first.get();
        r.r2 = source.overdrawn ? 1 : 0;
        r.r3 = (int) (source.requested.get() - freed.get());
        r.r4 = source.overlapped ? 1 : 0;
        r.r5 = source.emitted - freed.get() - producer.published.size();
        r.r6 = freed.get();
        r.r7 = ranElsewhere.get();
    }

    private boolean runElsewhere() {
        boolean ran = false;
        for (@Nullable Runnable task; (task = elsewhere.poll()) != null; ) {
            ranElsewhere.incrementAndGet();
            task.run();
            ran = true;
        }
        return ran;
    }

    /** The producer side: what it stages goes to the worker when it flushes. */
    private static final class Publishing implements Intake.Producer<String> {
        final Queue<MessageExchange<String>> published = new ConcurrentLinkedQueue<>();
        private final List<MessageExchange<String>> staged = new ArrayList<>();

        @Override
        public void stage(MessageExchange<String> exchange) {
            staged.add(exchange);
        }

        @Override
        public void flush() {
            published.addAll(staged);
            staged.clear();
        }

        @Override
        public void holdOpen() {}

        @Override
        public void closeAgain() {}
    }

    /** Emits inside {@code request(n)}, on the requesting thread, and checks the demand it is granted. */
    private static final class SynchronousSource implements Subscription {
        final AtomicLong first = new AtomicLong();
        final AtomicLong requested = new AtomicLong();
        volatile boolean overdrawn;
        volatile boolean overlapped;
        /** Emitted so far; written inside requests only, which the intake serializes. */
        volatile int emitted;

        private final Intake<String> intake;
        private final AtomicInteger freed;
        private final AtomicInteger inside = new AtomicInteger();

        SynchronousSource(Intake<String> intake, AtomicInteger freed) {
            this.intake = intake;
            this.freed = freed;
        }

        @Override
        public void request(long n) {
            if (inside.getAndIncrement() != 0) {
                overlapped = true;
            }
            first.compareAndSet(0, n);
            if (requested.addAndGet(n) > MAX_QUEUED + freed.get()) {
                overdrawn = true;
            }
            for (long i = 0; i < n && emitted < SUPPLY; i++) {
                emitted++;
                intake.onNext(new StressExchange(emitted));
            }
            inside.decrementAndGet();
        }

        @Override
        public void cancel() {}
    }
}
