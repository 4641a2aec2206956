package dev.lanes.flow;

import dev.lanes.internal.Require;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A count of work waiting downstream, watched against a budget: once it reaches the budget it holds its {@link
 * IntakeGate} closed, and it releases the gate when the count is back to half the budget (so the gate does not flap at
 * the bound). The count itself is never refused: the budget paces new intake, it does not drop work.
 *
 * <p>Thread-safety: any thread; every change re-evaluates the hold after it, so the last change always leaves the gate
 * consistent with the count.
 */
public final class Backlog {
    private final IntakeGate gate;
    private final int budget;
    private final int resume;
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean holding = new AtomicBoolean();

    /**
     * @throws IllegalArgumentException naming the value if {@code budget} is not positive
     */
    public Backlog(IntakeGate gate, int budget) {
        this.gate = Objects.requireNonNull(gate, "gate");
        this.budget = Require.positive(budget, "budget");
        this.resume = budget / 2;
    }

    public void add() {
        size.incrementAndGet();
        evaluate();
    }

    public void remove() {
        size.decrementAndGet();
        evaluate();
    }

    public int size() {
        return size.get();
    }

    public int budget() {
        return budget;
    }

    private void evaluate() {
        for (; ; ) {
            int now = size.get();
            if (!holding.get() && now >= budget) {
                if (holding.compareAndSet(false, true)) {
                    gate.hold();
                }
            } else if (holding.get() && now <= resume) {
                if (holding.compareAndSet(true, false)) {
                    gate.release();
                }
            } else {
                return;
            }
        }
    }

    @Override
    public String toString() {
        return "Backlog[" + size.get() + " of " + budget + ", " + gate + "]";
    }
}
