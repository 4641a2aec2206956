package dev.lanes.jcstress;

import static dev.lanes.jcstress.Attempt.INVOICE;
import static dev.lanes.jcstress.Attempt.ORDER;
import static dev.lanes.jcstress.Attempt.STOP_COMPLETED;
import static dev.lanes.jcstress.Attempt.STOP_FAILED;

import dev.lanes.scheduler.AggregateSchedulerSupplier;
import org.jspecify.annotations.Nullable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * One thread looks up two aggregate types in turn while another calls {@code forceStop()}: every scheduler admitted
 * before the stop is in its snapshot, and once the stop rejected a lookup no later lookup is admitted.
 *
 * <p>r1, r2: the codes of the first (order) and second (invoice) lookup, r3: the stop's code, r4: the code of lookups
 * made after the stop (see {@link Attempt}).
 */
@JCStressTest
@Description("Two lookups in turn racing with forceStop: no scheduler escapes disposal, no admission after a rejection")
@Outcome(id = "1, 1, 1, 2", expect = Expect.ACCEPTABLE, desc = "both lookups before the stop: it disposed both")
@Outcome(
        id = "1, 2, 1, 2",
        expect = Expect.ACCEPTABLE,
        desc = "stop between the lookups: first disposed, second rejected")
@Outcome(id = "2, 2, 1, 2", expect = Expect.ACCEPTABLE, desc = "stop first: both lookups rejected naming the supplier")
@Outcome(id = "2, 1, .*", expect = Expect.FORBIDDEN, desc = "a lookup admitted after the stop had rejected one")
@Outcome(id = "3, .*", expect = Expect.FORBIDDEN, desc = "the order scheduler escaped disposal")
@Outcome(id = "[12], 3, .*", expect = Expect.FORBIDDEN, desc = "the invoice scheduler escaped disposal")
@Outcome(expect = Expect.FORBIDDEN, desc = "a wrong rejection, another exception, a failed stop or a late admission")
@State
public class SequentialLookupsVsForceStop {
    private final AggregateSchedulerSupplier supplier = Attempt.newSupplier();
    private @Nullable Attempt order;
    private @Nullable Attempt invoice;
    private int stop = STOP_FAILED;

    @Actor
    public void lookups() {
        order = Attempt.getOrInitialize(supplier, ORDER);
        invoice = Attempt.getOrInitialize(supplier, INVOICE);
    }

    @Actor
    public void stop() {
        try {
            supplier.forceStop();
            stop = STOP_COMPLETED;
        } catch (RuntimeException e) {
            stop = STOP_FAILED;
        }
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        Attempt o = order;
        Attempt i = invoice;
        r.r1 = o == null ? Attempt.OTHER_FAILURE : o.classifyAfterStop();
        r.r2 = i == null ? Attempt.OTHER_FAILURE : i.classifyAfterStop();
        r.r3 = stop;
        r.r4 = Attempt.callAfterStop(supplier);
    }
}
