package dev.lanes.processing.tracking;

import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * The one-way lifecycle of a {@link TrackingProcessor}: {@code NEW -> PREPARED -> RUNNING -> STOPPING}, under one
 * monitor. A call in the wrong state throws {@link IllegalStateException} naming the component and its state.
 */
final class TrackingLifecycle {
    enum State {
        NEW,
        PREPARED,
        RUNNING,
        STOPPING
    }

    private final String name;
    private State state = State.NEW;
    private Mono<Void> stop = Mono.empty();

    TrackingLifecycle(String name) {
        this.name = name;
    }

    synchronized void prepared() {
        expect(State.NEW, "prepare");
        state = State.PREPARED;
    }

    synchronized void started() {
        expect(State.PREPARED, "start");
        state = State.RUNNING;
    }

    synchronized void requireRunning(String operation) {
        expect(State.RUNNING, operation);
    }

    /** The shared graceful stop, built from {@code stopping} on the first call; lazy and cached. */
    synchronized Mono<Void> stop(Supplier<Mono<Void>> stopping) {
        if (state != State.STOPPING) {
            state = State.STOPPING;
            stop = Mono.defer(stopping).cache();
        }
        return stop;
    }

    private void expect(State expected, String operation) {
        if (state != expected) {
            throw new IllegalStateException(
                    name + " cannot " + operation + " in state " + state + " (needs " + expected + ")");
        }
    }
}
