package dev.lanes.runtime;

import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import java.util.List;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/** A component that records every lifecycle call as {@code "<call>:<name>"} into a shared list. */
final class RecordingComponent implements RuntimeComponent {
    private final String name;
    private final List<String> calls;
    Supplier<Mono<Void>> onPrepare = Mono::empty;
    Runnable onStart = () -> {};
    Supplier<Mono<Void>> onStop = Mono::empty;
    Runnable onForce = () -> {};
    volatile RuntimeContext context = RuntimeContext.standalone();
    /** What {@link #holdsUnleasedWork()} answers. */
    volatile boolean unleased;

    RecordingComponent(String name, List<String> calls) {
        this.name = name;
        this.calls = calls;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.defer(() -> {
            calls.add("prepare:" + name);
            this.context = context;
            return onPrepare.get();
        });
    }

    @Override
    public void start() {
        calls.add("start:" + name);
        onStart.run();
    }

    @Override
    public void quiesce() {
        calls.add("quiesce:" + name);
    }

    @Override
    public Mono<Void> stopGracefully() {
        return Mono.defer(() -> {
            calls.add("stop:" + name);
            return onStop.get();
        });
    }

    @Override
    public boolean holdsUnleasedWork() {
        return unleased;
    }

    @Override
    public void forceStop() {
        calls.add("force:" + name);
        onForce.run();
    }
}
