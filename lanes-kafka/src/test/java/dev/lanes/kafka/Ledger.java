package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.modeling.AggregateDefinition;
import java.util.List;

/** A small test domain: accounts that are opened, then credited or debited (never below zero). */
final class Ledger {
    static final NamedAggregate ACCOUNT = NamedAggregate.of("ledger", "account");

    record Open(String owner) {}

    record Credit(long amount) {}

    record Debit(long amount) {}

    record Opened(String owner) {}

    record Credited(long amount) {}

    record Debited(long amount) {}

    record State(boolean open, long balance) {}

    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    private Ledger() {}

    static AggregateId account(String id) {
        return AggregateId.of(ACCOUNT, id);
    }

    static AggregateDefinition<State> definition() {
        return AggregateDefinition.<State>builder(ACCOUNT, id -> new State(false, 0))
                .handle(Open.class, (state, open) -> {
                    if (state.open()) {
                        throw new Refused("already open");
                    }
                    return List.of(new Opened(open.owner()));
                })
                .handle(Credit.class, (state, credit) -> {
                    requireOpen(state);
                    return List.of(new Credited(credit.amount()));
                })
                .handle(Debit.class, (state, debit) -> {
                    requireOpen(state);
                    if (state.balance() < debit.amount()) {
                        throw new Refused("insufficient funds: " + state.balance() + " < " + debit.amount());
                    }
                    return List.of(new Debited(debit.amount()));
                })
                .apply(Opened.class, (state, e) -> new State(true, 0))
                .apply(Credited.class, (state, e) -> new State(true, state.balance() + e.amount()))
                .apply(Debited.class, (state, e) -> new State(true, state.balance() - e.amount()))
                .build();
    }

    private static void requireOpen(State state) {
        if (!state.open()) {
            throw new Refused("not open");
        }
    }
}
