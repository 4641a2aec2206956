package dev.lanes.jcstress;

import static dev.lanes.jcstress.Attempt.ORDER;
import static dev.lanes.jcstress.Attempt.STOP_COMPLETED;
import static dev.lanes.jcstress.Attempt.STOP_FAILED;

import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@code getOrInitialize} racing with {@code stopGracefully().block(10 s)} on a fresh supplier. The lookup's scheduler must
 * be disposed once the blocking wait returned.
 *
 * <p>r1: the racing lookup's code, r2: the stop's code, r3: the code of lookups made after the stop (see {@link
 * Attempt}).
 */
@JCStressTest
@Description(
        "getOrInitialize racing with stopGracefully().block(10 s): the lookup's scheduler is disposed by the stop, or the lookup is"
                + " rejected with an IllegalStateException naming the supplier; lookups after the stop are rejected")
@Outcome(
        id = "1, 1, 2",
        expect = Expect.ACCEPTABLE,
        desc = "lookup first: it returned a scheduler and the stop disposed it; later lookups rejected")
@Outcome(
        id = "2, 1, 2",
        expect = Expect.ACCEPTABLE,
        desc = "stop first: lookup rejected with IllegalStateException naming the supplier; later lookups rejected")
@Outcome(
        id = "3, .*",
        expect = Expect.FORBIDDEN,
        desc = "lookup returned a scheduler that is not disposed after the stop: it escaped disposal")
@Outcome(
        id = "4, .*",
        expect = Expect.FORBIDDEN,
        desc = "lookup rejected with an IllegalStateException that does not name the supplier")
@Outcome(id = "5, .*", expect = Expect.FORBIDDEN, desc = "lookup threw another exception")
@Outcome(
        expect = Expect.FORBIDDEN,
        desc = "stop failed or timed out, or a lookup after the stop was not rejected naming the supplier")
@State
public class SchedulerLookupVsGracefulStop {
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final AggregateSchedulerSupplier supplier = Attempt.newSupplier();
    private @Nullable Attempt lookup;
    private int stop = STOP_FAILED;

    @Actor
    public void lookup() {
        lookup = Attempt.getOrInitialize(supplier, ORDER);
    }

    @Actor
    public void stop() {
        try {
            supplier.stopGracefully().block(STOP_TIMEOUT);
            stop = STOP_COMPLETED;
        } catch (RuntimeException e) {
            stop = STOP_FAILED;
        }
    }

    @Arbiter
    public void arbiter(III_Result r) {
        Attempt l = lookup;
        r.r1 = l == null ? Attempt.OTHER_FAILURE : l.classifyAfterStop();
        r.r2 = stop;
        r.r3 = Attempt.callAfterStop(supplier);
    }
}
