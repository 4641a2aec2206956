package dev.lanes.lifecycle;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Runs the lifecycle of several components as one, and owns a resource they share (their scheduler supplier). See
 * {@link RuntimeComponent#group}.
 *
 * <p>Order: prepare, start and quiesce in registration order; graceful stop first quiesces every member (all intake
 * closes), then drains the members in reverse order, then stops the owned resource, once. Force stops the members in
 * reverse order, then the owned resource. A member's failure does not skip the others: every step runs, and the first
 * failure is the result (later ones suppressed). A force that comes before the graceful stop is subscribed turns the
 * owned resource's graceful stop into a no-op.
 */
final class ComponentGroup implements RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(ComponentGroup.class);

    private final String name;
    private final List<RuntimeComponent> members;
    private final ForceStoppable supplier;
    private final AtomicBoolean forced = new AtomicBoolean();
    private final Mono<Void> gracefulStop;

    ComponentGroup(String name, List<? extends RuntimeComponent> members, ForceStoppable supplier) {
        this.name = Objects.requireNonNull(name, "name");
        this.members = List.copyOf(members);
        this.supplier = Objects.requireNonNull(supplier, "supplier");
        this.gracefulStop = Mono.defer(this::stopInOrder).cache();
    }

    @Override
    public String name() {
        return name;
    }

    /** Prepares members in order; stops at the first failure (the owner then stops or forces the group). */
    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Flux.fromIterable(members)
                .concatMap(member -> forced.get() ? Mono.empty() : member.prepare(context))
                .then();
    }

    @Override
    public void start() {
        members.forEach(member -> {
            if (!forced.get()) {
                member.start();
            }
        });
    }

    @Override
    public void quiesce() {
        members.forEach(RuntimeComponent::quiesce);
    }

    @Override
    public boolean holdsUnleasedWork() {
        for (RuntimeComponent member : members) {
            if (member.holdsUnleasedWork()) {
                return true;
            }
        }
        return false;
    }

    /** Lazy and cached: quiesce all, drain members in reverse, then stop the supplier unless forced. */
    @Override
    public Mono<Void> stopGracefully() {
        return gracefulStop;
    }

    @Override
    public void forceStop() {
        forced.set(true);
        Throwable first = null;
        for (RuntimeComponent member : reversed()) {
            first = attempt(first, member::forceStop, member.name());
        }
        first = attempt(first, supplier::forceStop, supplier.toString());
        if (first != null) {
            throw Exceptions.propagate(first);
        }
    }

    private Mono<Void> stopInOrder() {
        AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
        quiesce();
        return Flux.fromIterable(reversed())
                .concatMap(member -> forced.get()
                        ? Mono.empty()
                        : member.stopGracefully().onErrorResume(error -> remember(failure, error, member.name())))
                .then(Mono.defer(() -> forced.get()
                        ? Mono.empty()
                        : supplier.stopGracefully()
                                .onErrorResume(error -> remember(failure, error, supplier.toString()))))
                .then(Mono.defer(() -> {
                    Throwable first = failure.get();
                    return first == null ? Mono.<Void>empty() : Mono.error(first);
                }));
    }

    private Mono<Void> remember(AtomicReference<@Nullable Throwable> failure, Throwable error, String who) {
        log.error("{}: {} failed to stop gracefully", name, who, error);
        if (!failure.compareAndSet(null, error)) {
            Objects.requireNonNull(failure.get()).addSuppressed(error);
        }
        return Mono.empty();
    }

    private @Nullable Throwable attempt(@Nullable Throwable first, Runnable action, String who) {
        try {
            action.run();
            return first;
        } catch (RuntimeException error) {
            log.error("{}: {} failed to force-stop", name, who, error);
            if (first == null) {
                return error;
            }
            first.addSuppressed(error);
            return first;
        }
    }

    private List<RuntimeComponent> reversed() {
        List<RuntimeComponent> reversed = new ArrayList<>(members);
        java.util.Collections.reverse(reversed);
        return reversed;
    }

    @Override
    public String toString() {
        return name;
    }
}
