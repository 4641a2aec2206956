package dev.lanes.jcstress;

import dev.lanes.api.NamedAggregate;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;

/**
 * The outcome of one {@link AggregateSchedulerSupplier#getOrInitialize} call, and the shared result codes of the
 * supplier checks.
 *
 * <p>Codes of a {@code getOrInitialize} call, read once the stop has completed:
 *
 * <ul>
 *   <li>{@value #RETURNED_DISPOSED}: returned a scheduler, and it is disposed (it was part of the stop's disposal);
 *   <li>{@value #REJECTED_NAMING_SUPPLIER}: threw {@link IllegalStateException} whose message names the supplier;
 *   <li>{@value #RETURNED_NOT_DISPOSED}: returned a scheduler that is not disposed: it escaped disposal;
 *   <li>{@value #REJECTED_WITHOUT_NAME}: threw {@link IllegalStateException} whose message does not name the
 *       supplier;
 *   <li>{@value #OTHER_FAILURE}: threw any other exception.
 * </ul>
 *
 * <p>Codes of a stop verb: {@value #STOP_COMPLETED} when it returned normally, {@value #STOP_FAILED} when it threw (for
 * {@code stopGracefully().block(timeout)} also a time-out).
 */
final class Attempt {
    static final int RETURNED_DISPOSED = 1;
    static final int REJECTED_NAMING_SUPPLIER = 2;
    static final int RETURNED_NOT_DISPOSED = 3;
    static final int REJECTED_WITHOUT_NAME = 4;
    static final int OTHER_FAILURE = 5;

    static final int STOP_COMPLETED = 1;
    static final int STOP_FAILED = 0;

    /** The supplier's name: distinct from both aggregate names, so a message naming a key does not count. */
    static final String SUPPLIER_NAME = "jcstress-supplier";

    static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");
    static final NamedAggregate INVOICE = NamedAggregate.of("billing", "invoice");

    private final @Nullable Scheduler scheduler;
    private final @Nullable RuntimeException failure;

    private Attempt(@Nullable Scheduler scheduler, @Nullable RuntimeException failure) {
        this.scheduler = scheduler;
        this.failure = failure;
    }

    /**
     * A fresh supplier with one worker per scheduler. Its schedulers create their executor eagerly but start no thread
     * until a task is scheduled, and the checks schedule none, so millions of them cost no thread.
     */
    static AggregateSchedulerSupplier newSupplier() {
        return AggregateSchedulers.perType(SUPPLIER_NAME, 1);
    }

    static Attempt getOrInitialize(AggregateSchedulerSupplier supplier, NamedAggregate key) {
        try {
            return new Attempt(supplier.getOrInitialize(key), null);
        } catch (RuntimeException e) {
            return new Attempt(null, e);
        }
    }

    @Nullable
    Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Classifies this attempt once a stop has completed, and disposes a scheduler that escaped the stop so that no
     * executor outlives the iteration whatever the supplier does.
     */
    int classifyAfterStop() {
        Scheduler s = scheduler;
        if (s != null) {
            if (s.isDisposed()) {
                return RETURNED_DISPOSED;
            }
            s.dispose();
            return RETURNED_NOT_DISPOSED;
        }
        RuntimeException e = failure;
        if (e instanceof IllegalStateException) {
            String message = e.getMessage();
            return message != null && message.contains(SUPPLIER_NAME)
                    ? REJECTED_NAMING_SUPPLIER
                    : REJECTED_WITHOUT_NAME;
        }
        return OTHER_FAILURE;
    }

    /**
     * The code of a call made after the stop completed: {@value #REJECTED_NAMING_SUPPLIER} is the only right one. Asks
     * for both aggregate types, the raced one (maybe cached before the stop) and one never asked for, and reports the
     * first wrong code.
     */
    static int callAfterStop(AggregateSchedulerSupplier supplier) {
        int raced = getOrInitialize(supplier, ORDER).classifyAfterStop();
        int fresh = getOrInitialize(supplier, INVOICE).classifyAfterStop();
        return raced != REJECTED_NAMING_SUPPLIER ? raced : fresh;
    }
}
