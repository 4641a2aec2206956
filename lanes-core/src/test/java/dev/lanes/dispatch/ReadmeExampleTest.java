package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The snippet of docs/guides/lane-engine.md, compiled and run, so it cannot rot. */
class ReadmeExampleTest {

    record Deposit(AggregateId account, long amount) implements MessageExchange<Deposit> {
        @Override
        public Deposit message() {
            return this;
        }

        @Override
        public AggregateId aggregateId() {
            return account;
        }

        @Override
        public void acknowledge() {}

        @Override
        public void reject(Throwable reason) {}
    }

    @Test
    void readmeSnippet() {
        List<String> log = new CopyOnWriteArrayList<>();
        NamedAggregate account = NamedAggregate.of("bank", "account");
        Flux<Deposit> deposits =
                Flux.range(1, 1_000).map(i -> new Deposit(AggregateId.of(account, "acc-" + i % 10), i));

        // --8<-- [start:readme]
        var schedulers = AggregateSchedulers.perType("bank"); // one scheduler per aggregate type
        var dispatcher = AggregateDispatcher.<Deposit>builder("DepositDispatcher", account)
                .source(deposits) // any Flux of exchanges: a bus, a topic, a test
                .schedulers(schedulers)
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED)) // a lane per account id
                .handler(exchange ->
                        Mono.fromRunnable(() -> log.add(exchange.message().toString())))
                .build();

        dispatcher.prepare(RuntimeContext.standalone()).block(); // subscribe, no demand yet
        dispatcher.start(); // lanes run: per account in order, accounts concurrently
        // --8<-- [end:readme]
        await().atMost(Duration.ofSeconds(10)).until(() -> log.size() == 1_000);
        // --8<-- [start:readme-stop]
        dispatcher.stopGracefully().block(); // stop taking, drain what was admitted
        schedulers.stopGracefully().block(); // then release the threads
        // --8<-- [end:readme-stop]

        assertThat(dispatcher.state()).isEqualTo(AggregateDispatcher.State.STOPPED);
        assertThat(dispatcher.stats().handled()).isEqualTo(1_000);
    }
}
