package dev.lanes.spring.sample;

import dev.lanes.examples.bank.BalanceProjection;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * The read side over HTTP: {@code GET /balances/{id}} reads the balance projection. Commands need no controller: the
 * starter's endpoint takes {@code POST /commands/account/{id}/{command}} (see {@code BankHttp}).
 */
@RestController
class BalanceController {
    private final BalanceProjection balances;

    BalanceController(BalanceProjection balances) {
        this.balances = balances;
    }

    @GetMapping("/balances/{id}")
    ResponseEntity<BalanceProjection.Row> balance(@PathVariable("id") String id) {
        BalanceProjection.Row row = balances.rows().get(id);
        return row == null ? ResponseEntity.notFound().build() : ResponseEntity.ok(row);
    }
}
