/**
 * The runtime contract: components with a one-way lifecycle (prepare, start, quiesce, stop, force) and the context
 * that admits work through activity leases.
 */
@NullMarked
package dev.lanes.runtime;

import org.jspecify.annotations.NullMarked;
