package dev.lanes.eventsourcing;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Two appends claim positions of the in-memory store ({@link Positions}) at once; each, once its own position is
 * visible, reads the visible position and every slot up to it, as a reader of {@code readAll} would.
 *
 * <p>r1, r2: 1 if every slot up to the visible position the first (second) append read held its stream, 0 if one was
 * unwritten (a gap). r3: the visible position once both returned.
 */
@JCStressTest
@Description("the visible position never passes an unwritten slot, and both appends end visible")
@Outcome(id = "1, 1, 2", expect = ACCEPTABLE, desc = "every slot below the visible position was written")
@Outcome(id = "0, .*, .*", expect = FORBIDDEN, desc = "the first append read past an unwritten slot")
@Outcome(id = ".*, 0, .*", expect = FORBIDDEN, desc = "the second append read past an unwritten slot")
@Outcome(expect = FORBIDDEN, desc = "an append ended before its position was visible")
@State
public class PositionsClaimVsRead {
    private static final NamedAggregate ACCOUNT = NamedAggregate.of("stress", "account");
    private static final DomainEventStream ONE = stream("one");
    private static final DomainEventStream TWO = stream("two");

    private final Positions positions = new Positions();

    private static DomainEventStream stream(String id) {
        return DomainEventStream.of(CommandMessage.of(AggregateId.of(ACCOUNT, id), "Open"), 1, List.of("Opened"));
    }

    @Actor
    public void first(III_Result r) {
        positions.awaitVisible(positions.claim(ONE));
        r.r1 = writtenUpToVisible();
    }

    @Actor
    public void second(III_Result r) {
        positions.awaitVisible(positions.claim(TWO));
        r.r2 = writtenUpToVisible();
    }

    @Arbiter
    public void after(III_Result r) {
        r.r3 = (int) positions.visible();
    }

    private int writtenUpToVisible() {
        long visible = positions.visible();
        for (long position = 1; position <= visible; position++) {
            if (positions.get(position) == null) {
                return 0;
            }
        }
        return visible >= 1 ? 1 : 0;
    }
}
