/**
 * The lane engine's bench scenarios: generated traffic, pulled or paced sources, a probe of order, settlement and
 * latency, and the run's invariants.
 */
@NullMarked
package dev.lanes.cli.engine;

import org.jspecify.annotations.NullMarked;
