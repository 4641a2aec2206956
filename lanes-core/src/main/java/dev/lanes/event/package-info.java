/** The event side: the domain event bus SPI and its in-memory implementation. */
@NullMarked
package dev.lanes.event;

import org.jspecify.annotations.NullMarked;
