/**
 * The entry point: {@link dev.lanes.Lanes#builder()} wires one service instance (aggregates, processors, stores, buses,
 * dispatchers, runtime) from its parts, with a default for everything but the aggregates.
 *
 * <p>The top layer: it depends on every other package, and none depends on it.
 */
@NullMarked
package dev.lanes;

import org.jspecify.annotations.NullMarked;
