package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.UnknownAggregateTypeException;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.BankNode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** The bus serves the aggregate types its dispatchers declared, and refuses any other at once. */
class UnknownAggregateTypeTest {

    @Test
    void aCommandForAnAggregateTypeNobodyServesIsRefusedAtSendAndNothingIsKept() {
        EventStore store = EventStores.inMemory();
        try (BankNode bank = new BankNode("Bank", store).start()) {
            AggregateId misspelt = AggregateId.of(NamedAggregate.of("bank", "acount"), "a1");

            StepVerifier.create(bank.gateway().send(misspelt, new Deposit(1), WaitStage.PROCESSED))
                    .expectErrorSatisfies(error -> assertThat(error)
                            .isInstanceOf(UnknownAggregateTypeException.class)
                            .hasMessageContaining("bank.acount")
                            .hasMessageContaining("bank.account"))
                    .verify(Duration.ofSeconds(5));
            assertThat(bank.results().inFlight()).isZero();
        }
    }
}
