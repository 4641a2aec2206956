package dev.lanes.cli.bank;

import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.messaging.CommandMessage;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The clients' gateway when several instances run: each aggregate's commands are sent through one instance's gateway
 * (by the aggregate id's hash), so every instance sends and waits, as the clients of a scaled-out service would.
 */
final class SpreadGateway implements CommandGateway {
    private final List<CommandGateway> gateways;

    SpreadGateway(List<CommandGateway> gateways) {
        this.gateways = List.copyOf(gateways);
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
        return of(command).send(command, waitStage);
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
        return of(command).send(command, waitStage, timeout);
    }

    private CommandGateway of(CommandMessage command) {
        return gateways.get(Math.floorMod(command.aggregateId().hashCode(), gateways.size()));
    }

    @Override
    public String toString() {
        return "SpreadGateway" + gateways;
    }
}
