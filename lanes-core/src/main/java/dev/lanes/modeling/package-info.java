/**
 * Aggregates as deciders, in plain Java: a state and its initial value, command handlers {@code (state, command) ->
 * events}, event appliers {@code (state, event) -> state}, keyed by command and event classes.
 */
@NullMarked
package dev.lanes.modeling;

import org.jspecify.annotations.NullMarked;
