/**
 * Micrometer meters for Lanes: the lane engine's {@link dev.lanes.dispatch.DispatcherMetrics} SPI and the runtime's
 * lifecycle and shutdown, named and tagged by Micrometer's conventions. Start at {@link
 * dev.lanes.micrometer.LanesMicrometer}.
 */
@NullMarked
package dev.lanes.micrometer;

import org.jspecify.annotations.NullMarked;
