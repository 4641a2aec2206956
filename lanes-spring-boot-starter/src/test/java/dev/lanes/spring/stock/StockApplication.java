package dev.lanes.spring.stock;

import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.command.lane.HandlerInterceptor;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.spring.LanesBuilderCustomizer;
import dev.lanes.spring.web.LanesWeb;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A stock service on the starter and its shipped endpoint; no controller of its own. A version conflict is retried
 * once, so the tests reach a conflict's answer quickly.
 */
@SpringBootApplication
public class StockApplication {

    @Bean
    Stock.Gates gates() {
        return new Stock.Gates();
    }

    @Bean
    AggregateDefinition<Stock.Level> stock(Stock.Gates gates, EventStore store) {
        return Stock.definition(gates, store);
    }

    @Bean
    List<String> audit() {
        return new CopyOnWriteArrayList<>();
    }

    /** Records who asked for which command, in the lane, from the principal header the endpoint's interceptor set. */
    @Bean
    HandlerInterceptor auditing(List<String> audit) {
        return (command, state, handler) -> handler.doOnSuccess(
                events -> audit.add(command.headers().getOrDefault(LanesWeb.PRINCIPAL_HEADER, "anonymous") + " "
                        + command.command().getClass().getSimpleName() + " "
                        + command.aggregateId().id()));
    }

    @Bean
    LanesBuilderCustomizer shortLanes() {
        return builder -> builder.commandSettings(
                CommandDispatcher.DEFAULT_SETTINGS.withRetryPolicy(CommandDispatcher.DEFAULT_RETRY_POLICY
                        .withMaxRetries(1)
                        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(2))));
    }
}
