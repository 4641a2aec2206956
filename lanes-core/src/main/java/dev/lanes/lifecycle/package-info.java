/**
 * Component contracts: the stop verbs ({@link dev.lanes.lifecycle.GracefullyStoppable}, {@link
 * dev.lanes.lifecycle.ForceStoppable}), the one-way lifecycle of a runtime part ({@link
 * dev.lanes.lifecycle.RuntimeComponent}: prepare, start, quiesce, stop, force), the context that admits work through
 * activity leases ({@link dev.lanes.lifecycle.RuntimeContext}), and groups of components run as one.
 *
 * <p>The bottom layer: it depends on no other Lanes package, and every component (lane engine, command and event
 * dispatchers, runtime) builds on it.
 */
@NullMarked
package dev.lanes.lifecycle;

import org.jspecify.annotations.NullMarked;
