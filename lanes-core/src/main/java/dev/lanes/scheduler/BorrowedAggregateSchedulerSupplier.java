package dev.lanes.scheduler;

import dev.lanes.api.NamedAggregate;
import java.util.Objects;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A non-owning view of another supplier: it hands out the owner's schedulers, and its stop verbs do nothing.
 *
 * <p>Give it to children that share their parent's schedulers: a child may run its whole lifecycle, including stop and
 * force, without releasing what the parent still uses. Only the owner is ever stopped for real.
 */
final class BorrowedAggregateSchedulerSupplier implements AggregateSchedulerSupplier {
    private final AggregateSchedulerSupplier owner;

    private BorrowedAggregateSchedulerSupplier(AggregateSchedulerSupplier owner) {
        this.owner = owner;
    }

    /** A view of {@code owner}; borrowing a borrowed view borrows its owner. */
    static AggregateSchedulerSupplier borrow(AggregateSchedulerSupplier owner) {
        Objects.requireNonNull(owner, "owner");
        if (owner instanceof BorrowedAggregateSchedulerSupplier borrowed) {
            return borrowed;
        }
        return new BorrowedAggregateSchedulerSupplier(owner);
    }

    @Override
    public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
        return owner.getOrInitialize(namedAggregate);
    }

    /** Completes at once without touching the owner. */
    @Override
    public Mono<Void> stopGracefully() {
        return Mono.empty();
    }

    /** Does nothing: the owner decides when its schedulers go. */
    @Override
    public void forceStop() {}

    @Override
    public String toString() {
        return "Borrowed(" + owner + ")";
    }
}
