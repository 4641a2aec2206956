/**
 * The command lane: the {@link dev.lanes.command.lane.CommandDispatcher} that takes commands from the bus and, one lane
 * per aggregate, loads, decides, appends and publishes; its interceptors, its state cache and where it parks the
 * commands whose retries ran out ({@link dev.lanes.command.lane.CommandParking}).
 */
@NullMarked
package dev.lanes.command.lane;

import org.jspecify.annotations.NullMarked;
