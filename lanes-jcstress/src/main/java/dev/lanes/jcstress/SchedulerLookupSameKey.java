package dev.lanes.jcstress;

import static dev.lanes.jcstress.Attempt.ORDER;

import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import reactor.core.scheduler.Scheduler;

/**
 * Two {@code getOrInitialize} calls for the same aggregate type racing on a fresh supplier, then {@code forceStop()} in
 * the arbiter.
 *
 * <p>r1: {@value #SAME} when both calls returned the identical scheduler, {@value #DISTINCT} when they returned two
 * different ones, {@value #FAILED} when a call threw. r2: {@value #ALL_DISPOSED} when every returned scheduler is
 * disposed after the stop, {@value #NOT_ALL_DISPOSED} otherwise, {@value #STOP_THREW} when the stop itself threw.
 */
@JCStressTest
@Description("Concurrent getOrInitialize for one aggregate type: both callers get the identical scheduler, and the"
        + " stop disposes it")
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "both got the identical scheduler; the stop disposed it")
@Outcome(
        id = "0, 1",
        expect = Expect.FORBIDDEN,
        desc = "the callers got two distinct schedulers for one aggregate type")
@Outcome(
        id = "0, 0",
        expect = Expect.FORBIDDEN,
        desc = "two distinct schedulers, and one escaped the cache and the stop's disposal")
@Outcome(id = "1, 0", expect = Expect.FORBIDDEN, desc = "the shared scheduler is not disposed after the stop")
@Outcome(id = ".*, -1", expect = Expect.FORBIDDEN, desc = "forceStop threw")
@Outcome(id = "-1, .*", expect = Expect.FORBIDDEN, desc = "a getOrInitialize call threw before any stop")
@Outcome(expect = Expect.FORBIDDEN, desc = "unexpected outcome")
@State
public class SchedulerLookupSameKey {
    static final int SAME = 1;
    static final int DISTINCT = 0;
    static final int FAILED = -1;
    static final int ALL_DISPOSED = 1;
    static final int NOT_ALL_DISPOSED = 0;
    static final int STOP_THREW = -1;

    private final AggregateSchedulerSupplier supplier = Attempt.newSupplier();
    private @Nullable Attempt first;
    private @Nullable Attempt second;

    @Actor
    public void first() {
        first = Attempt.getOrInitialize(supplier, ORDER);
    }

    @Actor
    public void second() {
        second = Attempt.getOrInitialize(supplier, ORDER);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        Attempt a = Objects.requireNonNull(first, "first");
        Attempt b = Objects.requireNonNull(second, "second");
        @Nullable Scheduler sa = a.scheduler();
        @Nullable Scheduler sb = b.scheduler();
        if (sa == null || sb == null) {
            r.r1 = FAILED;
        } else {
            r.r1 = sa == sb ? SAME : DISTINCT;
        }
        boolean stopThrew = false;
        try {
            supplier.forceStop();
        } catch (RuntimeException e) {
            stopThrew = true;
        }
        // classifyAfterStop also disposes a scheduler the stop missed, so nothing outlives the iteration
        boolean disposed = a.classifyAfterStop() != Attempt.RETURNED_NOT_DISPOSED;
        disposed &= b.classifyAfterStop() != Attempt.RETURNED_NOT_DISPOSED;
        r.r2 = stopThrew ? STOP_THREW : disposed ? ALL_DISPOSED : NOT_ALL_DISPOSED;
    }
}
