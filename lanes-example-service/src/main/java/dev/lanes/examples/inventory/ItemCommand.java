package dev.lanes.examples.inventory;

/**
 * What an item is asked to do; each is posted as JSON to {@code /commands/item/{sku}/{simple class name}}. A quantity
 * that is not positive is refused ({@link StockRuleViolation}, HTTP 422).
 */
public sealed interface ItemCommand {

    /** Goods arrived: {@code quantity} more on hand. */
    record Receive(long quantity) implements ItemCommand {}

    /** Set {@code quantity} aside for an order, if that many are available (on hand and not reserved). */
    record Reserve(long quantity) implements ItemCommand {}

    /** Give back {@code quantity} of what was reserved. */
    record Release(long quantity) implements ItemCommand {}
}
