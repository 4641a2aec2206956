/**
 * Flow control without blocking: an {@link dev.lanes.flow.IntakeGate} pauses the demand of the sources it admits
 * (never a thread), and a {@link dev.lanes.flow.Backlog} holds a gate closed while a count is at its budget. Bus
 * implementations pace their publishers through them.
 */
@NullMarked
package dev.lanes.flow;

import org.jspecify.annotations.NullMarked;
