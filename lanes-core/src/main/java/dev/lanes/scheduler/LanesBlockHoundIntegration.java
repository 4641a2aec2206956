package dev.lanes.scheduler;

import java.util.concurrent.ForkJoinPool;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound, when an application installs it, that an idle lane worker waiting for its next task is not
 * blocking, as Reactor's own integration does for its schedulers' idle workers. Loaded through {@link
 * java.util.ServiceLoader}; BlockHound is an optional dependency.
 */
public final class LanesBlockHoundIntegration implements BlockHoundIntegration {
    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside(ForkJoinPool.class.getName(), "awaitWork");
    }
}
