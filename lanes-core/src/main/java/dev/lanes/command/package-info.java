/**
 * The command side's front: the command bus SPI and its in-memory implementation, and the gateway with its wait
 * stages. The lane that loads, decides, appends and publishes is in {@link dev.lanes.command.lane}.
 */
@NullMarked
package dev.lanes.command;

import org.jspecify.annotations.NullMarked;
