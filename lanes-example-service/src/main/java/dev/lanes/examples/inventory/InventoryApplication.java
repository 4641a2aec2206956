package dev.lanes.examples.inventory;

import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The inventory as a Spring Boot service. The starter wires Lanes from these beans: PostgreSQL over the application's
 * {@code DataSource} (events, snapshots, checkpoints, dead letters), the command endpoint ({@code POST
 * /commands/item/{sku}/{command}}, the request id in {@code Idempotency-Key}), the health; {@link StockController}
 * reads the stock. Configuration: {@code application.yaml}, overridden by environment variables
 * ({@code SPRING_DATASOURCE_URL}, {@code SPRING_DATASOURCE_USERNAME}, {@code SPRING_DATASOURCE_PASSWORD},
 * {@code SERVER_PORT}).
 */
@SpringBootApplication
public class InventoryApplication {

    public static void main(String[] args) {
        SpringApplication.run(InventoryApplication.class, args);
    }

    @Bean
    AggregateDefinition<Item> item() {
        return Inventory.definition();
    }

    @Bean
    StockProjection stock() {
        return new StockProjection();
    }

    @Bean
    EventProcessor stockProjection(StockProjection stock) {
        return stock.processor();
    }
}
