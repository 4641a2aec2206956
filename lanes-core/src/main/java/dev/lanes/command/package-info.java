/**
 * The command side: the command bus SPI and its in-memory implementation, the gateway with its wait stages, and the
 * {@link dev.lanes.command.CommandDispatcher} that loads, decides, evolves, appends and publishes, one lane per
 * aggregate.
 */
@NullMarked
package dev.lanes.command;

import org.jspecify.annotations.NullMarked;
