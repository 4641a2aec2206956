package dev.lanes.messaging;

import dev.lanes.internal.Require;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;

/**
 * Whether a downstream stage has room for <em>new</em> work. While the gate is closed, the sources it {@link #admit
 * admits} get no more demand: new work waits at its source, under that source's own bound, and work already admitted
 * goes on. Nothing ever waits on a thread.
 *
 * <p>Holders close it: every {@link #hold()} is matched by one {@link #release()}, and the gate is open while no hold is
 * left (see {@link Backlog} for a count that holds it above a budget). When it opens, every admitted source is told at
 * once, on the releasing thread.
 *
 * <p>Thread-safety: any thread.
 */
public final class IntakeGate {
    /** Demand relayed to a gated source ahead of delivery: what a source may still deliver after the gate closed. */
    public static final int WINDOW = 32;

    private final String name;
    private final AtomicInteger holds = new AtomicInteger();
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();

    /** An open gate; {@code name} appears in logs and {@link #toString()}. */
    public IntakeGate(String name) {
        this.name = Require.notBlank(name, "name");
    }

    /** A gate that nobody holds: admitting through it relays demand unchanged in pace. */
    public static IntakeGate alwaysOpen() {
        return new IntakeGate("always open");
    }

    public boolean isOpen() {
        return holds.get() <= 0;
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

    /**
     * {@code source}, with its demand relayed only while this gate is open, at most {@value #WINDOW} ahead of delivery.
     * Signals, context (discard hooks) and cancellation pass through unchanged.
     */
    public <T> Flux<T> admit(Flux<T> source) {
        return new GatedFlux<>(source, this);
    }

    void listen(Runnable listener) {
        listeners.add(listener);
    }

    void unlisten(Runnable listener) {
        listeners.remove(listener);
    }

    @Override
    public String toString() {
        return "IntakeGate[" + name + ", " + (isOpen() ? "open" : "closed by " + holds.get() + " hold(s)") + "]";
    }
}
