package dev.lanes.examples.bank;

/** What happened to an account. */
public sealed interface AccountEvent {

    record AccountOpened(String owner) implements AccountEvent {}

    record Deposited(long amount, String reference) implements AccountEvent {}

    record Withdrawn(long amount, String reference) implements AccountEvent {}

    record AccountClosed() implements AccountEvent {}
}
