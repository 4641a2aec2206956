/**
 * The bank run behind {@code demo} and {@code bench --scenario command}: the wiring on the embedded defaults, the
 * clients and their ledger, and the audit of the event store once the runtime stopped.
 */
@NullMarked
package dev.lanes.cli.bank;

import org.jspecify.annotations.NullMarked;
