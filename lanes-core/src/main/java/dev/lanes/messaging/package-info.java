/**
 * The messages that flow through Lanes, as immutable values: commands ({@link dev.lanes.messaging.CommandMessage}),
 * the event streams one command appends ({@link dev.lanes.messaging.DomainEventStream}) and their events. They depend
 * on nothing but the API values: not on any transport nor on the lane engine, so the event store SPI can use them.
 */
@NullMarked
package dev.lanes.messaging;

import org.jspecify.annotations.NullMarked;
