package dev.lanes.runtime;

import reactor.core.publisher.Mono;

/**
 * A component whose lifecycle is that of a {@link ComponentGroup}: its members prepared, started and quiesced in
 * order, drained in reverse, then its owned scheduler supplier stopped.
 */
public interface GroupedComponent extends RuntimeComponent {

    /** The group that carries this component's lifecycle. */
    ComponentGroup lifecycle();

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
}
