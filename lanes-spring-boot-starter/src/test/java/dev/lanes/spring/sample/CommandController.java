package dev.lanes.spring.sample;

import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankRuleViolation;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The bank over HTTP: {@code POST /commands/account/{id}?wait=SENT|PROCESSED|PROJECTED} with a {@link CommandRequest}
 * body answers the command's result as JSON; {@code GET /balances/{id}} reads the balance projection. The request
 * thread waits for the stage (Spring MVC; a WebFlux controller would return the {@code Mono}).
 */
@RestController
class CommandController {
    private final CommandGateway gateway;
    private final BalanceProjection balances;

    CommandController(CommandGateway gateway, BalanceProjection balances) {
        this.gateway = gateway;
        this.balances = balances;
    }

    @PostMapping("/commands/{aggregate}/{id}")
    Map<String, Object> send(
            @PathVariable("aggregate") String aggregate,
            @PathVariable("id") String id,
            @RequestParam(name = "wait", defaultValue = "PROCESSED") WaitStage wait,
            @RequestBody CommandRequest request) {
        if (!aggregate.equals("account")) {
            throw new IllegalArgumentException("unknown aggregate '" + aggregate + "': this bank has 'account'");
        }
        CommandResult result =
                gateway.send(Bank.account(id), request.toCommand(), wait).block();
        if (result == null) {
            throw new IllegalStateException("the gateway completed without a result for " + id);
        }
        return json(result);
    }

    @GetMapping("/balances/{id}")
    ResponseEntity<BalanceProjection.Row> balance(@PathVariable("id") String id) {
        BalanceProjection.Row row = balances.rows().get(id);
        return row == null ? ResponseEntity.notFound().build() : ResponseEntity.ok(row);
    }

    @ExceptionHandler(BankRuleViolation.class)
    ResponseEntity<Map<String, String>> refused(BankRuleViolation e) {
        return error(HttpStatus.UNPROCESSABLE_CONTENT, e);
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException e) {
        return error(HttpStatus.BAD_REQUEST, e);
    }

    @ExceptionHandler(StageNotReachedException.class)
    ResponseEntity<Map<String, String>> notReached(StageNotReachedException e) {
        return error(HttpStatus.SERVICE_UNAVAILABLE, e);
    }

    private static ResponseEntity<Map<String, String>> error(HttpStatus status, Exception e) {
        return ResponseEntity.status(status)
                .body(Map.of("error", e.getClass().getSimpleName(), "message", String.valueOf(e.getMessage())));
    }

    private static Map<String, Object> json(CommandResult result) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("commandId", result.commandId());
        json.put("requestId", result.requestId());
        json.put("aggregateId", result.aggregateId().id());
        json.put("stage", result.stage());
        json.put("version", result.version());
        List<Map<String, Object>> events = result.events().stream()
                .map(event -> Map.of("type", event.getClass().getSimpleName(), "event", event))
                .toList();
        json.put("events", events);
        return json;
    }
}
