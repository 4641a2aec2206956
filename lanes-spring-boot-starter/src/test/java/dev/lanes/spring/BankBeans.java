package dev.lanes.spring;

import dev.lanes.examples.bank.Account;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The bank's aggregate, projection and saga as an application declares them. */
@Configuration(proxyBeanMethods = false)
class BankBeans {
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
