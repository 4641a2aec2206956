/**
 * The inventory service: a Spring Boot application on the Lanes starter. Commands come in over the starter's endpoint
 * ({@code POST /commands/item/{sku}/{Receive|Reserve|Release}}), the events go to PostgreSQL, and {@link
 * dev.lanes.examples.inventory.StockProjection} (replayed from the store at every start) answers {@code GET
 * /stock/{sku}}.
 */
@NullMarked
package dev.lanes.examples.inventory;

import org.jspecify.annotations.NullMarked;
