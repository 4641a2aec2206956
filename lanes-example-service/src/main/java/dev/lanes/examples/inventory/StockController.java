package dev.lanes.examples.inventory;

import java.util.Map;
import java.util.TreeMap;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The read side over HTTP: {@code GET /stock/{sku}} (404 for an item with no events yet) and {@code GET /stock}, every
 * item by SKU. Commands need no controller: the starter's endpoint takes them.
 */
@RestController
class StockController {
    private final StockProjection stock;

    StockController(StockProjection stock) {
        this.stock = stock;
    }

    @GetMapping("/stock/{sku}")
    ResponseEntity<StockProjection.Row> item(@PathVariable("sku") String sku) {
        StockProjection.Row row = stock.row(sku);
        return row == null ? ResponseEntity.notFound().build() : ResponseEntity.ok(row);
    }

    @GetMapping("/stock")
    Map<String, StockProjection.Row> all() {
        return new TreeMap<>(stock.rows());
    }
}
