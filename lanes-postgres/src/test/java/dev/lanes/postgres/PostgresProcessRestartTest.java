package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.deadline.Deadline;
import dev.lanes.deadline.DeadlineRunner;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.Deadlines;
import dev.lanes.examples.orders.Fulfilment;
import dev.lanes.examples.orders.OrderCommand.PlaceOrder;
import dev.lanes.examples.orders.OrderCommand.ReceiveStock;
import dev.lanes.examples.orders.OrderEvent.OrderCancelled;
import dev.lanes.examples.orders.OrderEvent.StockReleased;
import dev.lanes.examples.orders.OrderEvent.StockReserved;
import dev.lanes.examples.orders.Shop;
import dev.lanes.process.ProcessManager;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The order-fulfilment process on PostgreSQL across a restart: its payment deadline falls due while no instance runs,
 * and fires once when one starts again (a second firing of the same deadline is applied once).
 */
class PostgresProcessRestartTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final Clock clock = Deadlines.clockOf(time);
    private final String database = TestDatabase.createDatabase();

    @AfterEach
    void disposeTime() {
        time.dispose();
    }

    private PostgresEventStore connect() {
        PostgresEventStore store = PostgresEventStore.connect(TestDatabase.jdbcUrl(database), TestDatabase.USER, null);
        store.migrate();
        return store;
    }

    private Lanes lanes(PostgresEventStore store, ProcessManager<Fulfilment> fulfilment) {
        return Lanes.builder()
                .aggregate(Shop.orders())
                .aggregate(Shop.stock())
                .aggregate(Shop.payments())
                .processManager(fulfilment)
                .eventStore(store)
                .deadLetterQueue(DeadLetterQueues.inMemory())
                .build()
                .start();
    }

    private DeadlineRunner runner(DeadlineStore deadlines, Lanes lanes) {
        return DeadlineRunner.create(
                        deadlines,
                        lanes.gateway(),
                        DeadLetterQueues.inMemory(),
                        clock,
                        time,
                        DeadlineRunner.Settings.DEFAULT.withPollInterval(Duration.ofSeconds(1)))
                .start();
    }

    private static List<Object> events(PostgresEventStore store, AggregateId id) {
        return Objects.requireNonNull(store.load(id, 1)
                .flatMapIterable(stream -> stream.events())
                .map(event -> event.payload())
                .collectList()
                .block(WAIT));
    }

    private static long count(List<Object> events, Class<?> type) {
        return events.stream().filter(type::isInstance).count();
    }

    @Test
    void aPaymentDeadlineDueWhileNoInstanceRanFiresOnceAfterTheRestart() {
        Deadline due;
        try (PostgresEventStore store = connect()) {
            DeadlineStore deadlines = store.deadlineStore();
            try (Lanes lanes = lanes(store, Fulfilment.process(deadlines, clock, Fulfilment.PAYMENT_TIMEOUT))) {
                DeadlineRunner runner = runner(deadlines, lanes);
                lanes.gateway()
                        .send(Shop.stock("sku-1"), new ReceiveStock(3), WaitStage.PROCESSED)
                        .block(WAIT);
                lanes.gateway()
                        .send(Shop.order("o1"), new PlaceOrder("sku-1", 2), WaitStage.PROCESSED)
                        .block(WAIT);
                await().atMost(WAIT)
                        .until(() -> count(events(store, Shop.stock("sku-1")), StockReserved.class) == 1
                                && Objects.requireNonNull(deadlines.pending().block(WAIT))
                                                .size()
                                        == 1);
                due = Objects.requireNonNull(deadlines.pending().block(WAIT)).get(0);
                runner.stop().block(WAIT);
            }
        }
        time.advanceTimeBy(Duration.ofHours(1)); // nothing runs

        try (PostgresEventStore store = connect()) {
            DeadlineStore deadlines = store.deadlineStore();
            try (Lanes lanes = lanes(store, Fulfilment.process(deadlines, clock, Fulfilment.PAYMENT_TIMEOUT))) {
                DeadlineRunner runner = runner(deadlines, lanes);
                time.advanceTime();
                await().atMost(WAIT)
                        .until(() -> count(events(store, Shop.stock("sku-1")), StockReleased.class) == 1
                                && Objects.requireNonNull(deadlines.pending().block(WAIT))
                                        .isEmpty());

                deadlines.schedule(due).block(WAIT); // as if a runner had died before removing it
                time.advanceTimeBy(Duration.ofSeconds(1));
                await().atMost(WAIT).until(() -> runner.fired() == 2);
                runner.stop().block(WAIT);
            }
            assertThat(count(events(store, Shop.order("o1")), OrderCancelled.class))
                    .isEqualTo(1);
            assertThat(count(events(store, Shop.stock("sku-1")), StockReleased.class))
                    .isEqualTo(1);
        }
    }
}
