package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

class DomainEventBusTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void everyConsumerGroupSeesEveryStreamOncePerAggregateInVersionOrder() {
        EventStore store = EventStores.inMemory();
        DomainEventBus eventBus = DomainEventBuses.inMemory(64);
        List<String> groups = List.of("projection", "saga", "audit");
        Map<String, Map<String, List<Integer>>> seen = new ConcurrentHashMap<>();
        List<Disposable> consumers = new ArrayList<>();
        for (String group : groups) {
            Map<String, List<Integer>> versionsById = new ConcurrentHashMap<>();
            seen.put(group, versionsById);
            consumers.add(eventBus.receive(group, Bank.ACCOUNT)
                    // a slow-ish consumer on its own thread: its route fills past its budget while publishers go on
                    .publishOn(Schedulers.single(), 16)
                    .subscribe((MessageExchange<DomainEventStream> exchange) -> {
                        DomainEventStream stream = exchange.message();
                        versionsById
                                .computeIfAbsent(stream.aggregateId().id(), id -> new CopyOnWriteArrayList<>())
                                .add(stream.version());
                        exchange.acknowledge();
                    }));
        }
        try (BankNode bank = new BankNode("Bank", store, 4096, eventBus, b -> b).start()) {
            int accounts = 50;
            Flux.range(0, accounts)
                    .flatMap(i -> bank.gateway().send(Bank.account("a" + i), new OpenAccount("o"), WaitStage.PROCESSED))
                    .blockLast(TIMEOUT);
            Flux.range(0, 5_000)
                    .flatMap(
                            i -> bank.gateway()
                                    .send(Bank.account("a" + (i % accounts)), new Deposit(1), WaitStage.PROCESSED),
                            256)
                    .blockLast(TIMEOUT);

            for (String group : groups) {
                await().atMost(TIMEOUT).until(() -> total(seen.get(group)) == 5_050);
                seen.get(group).forEach((id, versions) -> {
                    List<Integer> expected = new ArrayList<>();
                    for (int v = 1; v <= versions.size(); v++) {
                        expected.add(v);
                    }
                    assertThat(versions).as("%s saw %s", group, id).isEqualTo(expected);
                });
                assertThat(seen.get(group)).hasSize(accounts);
            }
        } finally {
            consumers.forEach(Disposable::dispose);
        }
    }

    @Test
    void aStreamForATypeWithoutConsumersIsPublishedToNobody() {
        DomainEventBus eventBus = DomainEventBuses.inMemory(8);
        DomainEventStream stream = DomainEventStream.of(
                dev.lanes.messaging.CommandMessage.of(Bank.account("x"), new OpenAccount("x")), 1, List.of("e"));
        assertThat(eventBus.publish(stream).then(Mono.just(true)).block(TIMEOUT))
                .isTrue();
    }

    private static int total(Map<String, List<Integer>> versionsById) {
        return versionsById.values().stream().mapToInt(List::size).sum();
    }
}
