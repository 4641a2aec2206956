package dev.lanes.examples.bank;

/**
 * An account's state.
 *
 * @param owner empty until opened
 * @param balance in cents, never negative
 */
public record Account(String owner, long balance, boolean open, boolean closed) {

    public static final Account NEW = new Account("", 0, false, false);
}
