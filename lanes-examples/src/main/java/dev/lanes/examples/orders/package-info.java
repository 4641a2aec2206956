/**
 * The order-fulfilment sample: orders, stock and payments as aggregates, and a process manager ({@link
 * dev.lanes.examples.orders.Fulfilment}) that reserves stock, waits for the payment under a deadline, then ships or
 * cancels.
 */
@NullMarked
package dev.lanes.examples.orders;

import org.jspecify.annotations.NullMarked;
