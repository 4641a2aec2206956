package dev.lanes.lifecycle;

import reactor.core.publisher.Mono;

/**
 * A component whose lifecycle is carried by another, typically a {@link RuntimeComponent#group group}: its members
 * prepared, started and quiesced in order, drained in reverse, then its owned scheduler supplier stopped. Implement
 * {@link #lifecycle()}; every lifecycle call is delegated to it.
 */
public interface GroupedComponent extends RuntimeComponent {

    /** The component (a group) that carries this component's lifecycle. */
    RuntimeComponent lifecycle();

    @Override
    default Mono<Void> prepare(RuntimeContext context) {
        return lifecycle().prepare(context);
    }

    @Override
    default void start() {
        lifecycle().start();
    }

    @Override
    default void quiesce() {
        lifecycle().quiesce();
    }

    @Override
    default Mono<Void> stopGracefully() {
        return lifecycle().stopGracefully();
    }

    @Override
    default void forceStop() {
        lifecycle().forceStop();
    }

    @Override
    default boolean holdsUnleasedWork() {
        return lifecycle().holdsUnleasedWork();
    }
}
