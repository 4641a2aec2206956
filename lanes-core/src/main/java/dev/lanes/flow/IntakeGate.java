package dev.lanes.flow;

import dev.lanes.internal.Require;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;

/**
 * Whether a downstream stage has room for <em>new</em> work. While the gate is closed, the sources it {@link #admit
 * admits} get no more demand: new work waits at its source, under that source's own bound, and work already admitted
 * goes on. Nothing ever waits on a thread.
 *
 * <p>Holders close it: every {@link #hold()} is matched by one {@link #release()}, and the gate is open while no hold is
 * left (see {@link Backlog} for a count that holds it above a budget). {@link #shut()} closes it for good: the admitted
 * sources are cancelled, so what they still hold is discarded (handed back) by them. A gate made with {@link #and} is
 * open only while both are open, and shut when either is.
 *
 * <p>When a gate opens or shuts, every admitted source is told at once, on the thread that opened or shut it.
 * Thread-safety: any thread.
 */
public final class IntakeGate {
    /** Demand relayed to a gated source ahead of delivery: what a source may still deliver after the gate closed. */
    public static final int WINDOW = 32;

    private final String name;
    /** An array, not a list: {@link #isOpen} runs per delivered message and must not allocate an iterator. */
    private final IntakeGate[] parts;

    private final AtomicInteger holds = new AtomicInteger();
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
    private volatile boolean shut;

    /** An open gate; {@code name} appears in logs and {@link #toString()}. */
    public IntakeGate(String name) {
        this(Require.notBlank(name, "name"), new IntakeGate[0]);
    }

    private IntakeGate(String name, IntakeGate... parts) {
        this.name = name;
        this.parts = parts;
    }

    /** A gate that nobody holds. */
    public static IntakeGate alwaysOpen() {
        return new IntakeGate("always open");
    }

    /** A gate open while this one and {@code other} are both open; its own holds and shut add to theirs. */
    public IntakeGate and(IntakeGate other) {
        return new IntakeGate(name + " and " + other.name, this, Objects.requireNonNull(other, "other"));
    }

    public boolean isOpen() {
        if (isShut() || holds.get() > 0) {
            return false;
        }
        for (IntakeGate part : parts) {
            if (!part.isOpen()) {
                return false;
            }
        }
        return true;
    }

    /** Whether it was shut, for good. */
    public boolean isShut() {
        if (shut) {
            return true;
        }
        for (IntakeGate part : parts) {
            if (part.isShut()) {
                return true;
            }
        }
        return false;
    }

    /** Closes the gate until this hold is released. */
    public void hold() {
        holds.incrementAndGet();
    }

    /** Releases one hold; the last one opens the gate and wakes the admitted sources. */
    public void release() {
        if (holds.decrementAndGet() == 0) {
            listeners.forEach(Runnable::run);
        }
    }

    /** Closes the gate for good: the admitted sources are cancelled. Idempotent. */
    public void shut() {
        if (!shut) {
            shut = true;
            listeners.forEach(Runnable::run);
        }
    }

    /**
     * {@code source}, with its demand relayed only while this gate is open, at most {@value #WINDOW} ahead of delivery,
     * and cancelled once the gate is shut. Signals, context (discard hooks) and cancellation pass through unchanged.
     */
    public <T> Flux<T> admit(Flux<T> source) {
        return new GatedFlux<>(source, this);
    }

    void listen(Runnable listener) {
        listeners.add(listener);
        for (IntakeGate part : parts) {
            part.listen(listener);
        }
    }

    void unlisten(Runnable listener) {
        listeners.remove(listener);
        for (IntakeGate part : parts) {
            part.unlisten(listener);
        }
    }

    @Override
    public String toString() {
        return "IntakeGate[" + name + ", " + (isShut() ? "shut" : isOpen() ? "open" : "closed") + "]";
    }
}
