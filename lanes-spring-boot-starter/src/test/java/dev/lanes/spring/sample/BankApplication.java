package dev.lanes.spring.sample;

import dev.lanes.examples.bank.Account;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import dev.lanes.spring.EventProcessorFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** The bank as a Spring Boot service: the starter wires Lanes from these beans; the starter's endpoint takes its commands
 * ({@code POST /commands/account/{id}/{command}}) and {@link BalanceController} reads balances. */
@SpringBootApplication
public class BankApplication {

    public static void main(String[] args) {
        SpringApplication.run(BankApplication.class, args);
    }

    @Bean
    AggregateDefinition<Account> account() {
        return Bank.definition();
    }

    @Bean
    BalanceProjection balances() {
        return new BalanceProjection();
    }

    @Bean
    EventProcessor balanceProjection(BalanceProjection balances) {
        return balances.processor();
    }

    @Bean
    EventProcessorFactory transferSaga() {
        return TransferSaga::processor;
    }
}
