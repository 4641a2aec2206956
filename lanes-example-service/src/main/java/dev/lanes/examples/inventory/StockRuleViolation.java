package dev.lanes.examples.inventory;

import dev.lanes.modeling.CommandRejectedException;

/** An inventory rule refused a command (HTTP 422): a quantity not positive, or not enough stock to reserve or release. */
public final class StockRuleViolation extends CommandRejectedException {
    private static final long serialVersionUID = 1L;

    StockRuleViolation(String message) {
        super(message);
    }
}
