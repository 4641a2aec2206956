package dev.lanes.examples.bank;

import dev.lanes.modeling.CommandRejectedException;

/** A bank rule refused a command: insufficient funds, a closed or unopened account, a non-positive amount. */
public final class BankRuleViolation extends CommandRejectedException {
    private static final long serialVersionUID = 1L;

    BankRuleViolation(String message) {
        super(message);
    }
}
