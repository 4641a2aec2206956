package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * An envelope's phases under a force stop: the owner starts it, its handler fails once and is retried, then the owner
 * acknowledges it ({@link Envelope#tryStart()} twice, then {@link Envelope#trySettle()}); meanwhile a force stop
 * rejects it ({@link Envelope#trySettle()}).
 *
 * <p>The stop raises a flag after its settle won; the owner reads the flag before each {@code tryStart()}. A start that
 * succeeds after the owner saw the flag began after the stop had settled the envelope: its handler ran for an exchange
 * already handed back to its source. A start the flag does not precede may have begun before the stop's settle (the
 * handler then runs while the stop cancels it), so it is acceptable.
 *
 * <p>r1: attempts started (0 to 2). r2: the owner's acknowledgement won (1) or lost (0). r3: the stop's rejection won
 * (1) or lost (0). r4: 1 if a {@code tryStart()} succeeded after the owner had seen the stop's settle.
 */
@JCStressTest
@Description("tryStart and an acknowledging trySettle racing with a force stop's trySettle: exactly one settles, and"
        + " once the stop has settled the envelope no attempt starts")
@Outcome(id = "0, 0, 1, 0", expect = ACCEPTABLE, desc = "stop first, while QUEUED: rejected; the handler never ran")
@Outcome(
        id = "1, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "stop during the first attempt (RUNNING): rejected as cancelled; the retry did not start")
@Outcome(
        id = "2, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "stop during the retry (RUNNING): rejected as cancelled; the owner's acknowledgement lost")
@Outcome(id = "2, 1, 0, 0", expect = ACCEPTABLE, desc = "owner first: acknowledged; the stop found it settled")
@Outcome(
        id = ".*, 1",
        expect = FORBIDDEN,
        desc = "an attempt started after the stop had settled the envelope: a handler ran for a rejected exchange")
@Outcome(id = ".*, 1, 1, .*", expect = FORBIDDEN, desc = "settled twice: acknowledged and rejected")
@Outcome(id = ".*, 0, 0, .*", expect = FORBIDDEN, desc = "never settled: neither acknowledged nor rejected")
@Outcome(expect = FORBIDDEN, desc = "acknowledged without both attempts, or another impossible combination")
@State
public class EnvelopeSettleVsForceStop {
    private final Envelope<String> envelope = StressExchange.envelope(1);
    private volatile boolean stopSettled;
    private int started;
    private boolean acknowledged;
    private boolean startedAfterStop;
    private boolean rejected;

    @Actor
    public void owner() {
        if (!start()) {
            return;
        }
        // the handler runs, fails, and the lane retries it
        if (!start()) {
            return;
        }
        // the handler runs and succeeds
        acknowledged = envelope.trySettle();
    }

    private boolean start() {
        boolean stopSeen = stopSettled;
        if (!envelope.tryStart()) {
            return false;
        }
        started++;
        startedAfterStop |= stopSeen;
        return true;
    }

    @Actor
    public void forceStop() {
        rejected = envelope.trySettle();
        if (rejected) {
            stopSettled = true;
        }
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        r.r1 = started;
        r.r2 = acknowledged ? 1 : 0;
        r.r3 = rejected ? 1 : 0;
        r.r4 = startedAfterStop ? 1 : 0;
    }
}
