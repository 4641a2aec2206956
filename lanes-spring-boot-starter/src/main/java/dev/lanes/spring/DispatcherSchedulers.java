package dev.lanes.spring;

import dev.lanes.scheduler.AggregateSchedulerSupplier;

/**
 * Makes the scheduler supplier of each dispatcher from its name ({@code CommandDispatcher}, {@code EventDispatcher}).
 * Each dispatcher owns and stops the supplier it gets: return a new one per call. Declare a bean of this type to replace
 * the one {@code lanes.schedulers.*} configures.
 *
 * <pre>{@code
 * @Bean
 * DispatcherSchedulers dispatcherSchedulers() {
 *     return name -> AggregateSchedulers.sharedPool(name, 4);
 * }
 * }</pre>
 */
@FunctionalInterface
public interface DispatcherSchedulers {

    /** A new supplier for the dispatcher called {@code dispatcher}; called once per dispatcher while Lanes is built. */
    AggregateSchedulerSupplier create(String dispatcher);
}
