package dev.lanes.cli.orders;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.cli.bank.Stores;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.deadline.DeadlineRunner;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.examples.orders.Fulfilment;
import dev.lanes.examples.orders.OrderCommand.Pay;
import dev.lanes.examples.orders.OrderCommand.PlaceOrder;
import dev.lanes.examples.orders.OrderCommand.ReceiveStock;
import dev.lanes.examples.orders.OrderEvent.OrderCancelled;
import dev.lanes.examples.orders.OrderEvent.OrderShipped;
import dev.lanes.examples.orders.OrderEvent.PaymentReceived;
import dev.lanes.examples.orders.OrderEvent.StockReceived;
import dev.lanes.examples.orders.OrderEvent.StockShipped;
import dev.lanes.examples.orders.Shop;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.AggregateState;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.process.ProcessEvent;
import dev.lanes.process.ProcessManager;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The order-fulfilment process end to end: stock is received, concurrent clients place orders and pay for most of
 * them; the process reserves stock, ships the paid ones and cancels the others when their payment deadline passes (or
 * at once when stock runs out). Then a graceful stop and an audit of the store: every order ended shipped or cancelled,
 * never both; no deadline was handled twice (and none is left); stock is conserved; only paid orders shipped.
 */
public final class OrdersRun {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int SKUS = 5;

    /**
     * What to run.
     *
     * @param orders how many orders the clients place
     * @param clients how many orders are in flight at once
     * @param paymentTimeout how long an order waits for its payment (15 minutes in the sample; shorter in a demo)
     * @param stores where the events (and, on PostgreSQL, the deadlines) are kept
     */
    public record Settings(int orders, int clients, Duration paymentTimeout, Stores stores) {
        public Settings {
            Objects.requireNonNull(paymentTimeout, "paymentTimeout");
            Objects.requireNonNull(stores, "stores");
        }
    }

    private OrdersRun() {}

    /** Runs, prints the audit to {@code out}; whether every invariant passed. */
    public static boolean run(Settings settings, PrintWriter out) {
        EventStore events = settings.stores().events();
        DeadlineStore deadlines =
                events instanceof PostgresEventStore postgres ? postgres.deadlineStore() : DeadlineStores.inMemory();
        DeadLetterQueue parked = settings.stores().deadLetters().get();
        ProcessManager<Fulfilment> fulfilment =
                Fulfilment.process(deadlines, Clock.systemUTC(), settings.paymentTimeout());
        Set<String> ended = ConcurrentHashMap.newKeySet();
        out.println("Lanes demo: order fulfilment (a process manager with payment deadlines) on "
                + settings.stores().description());
        AtomicReference<@Nullable DeadlineRunner> runner = new AtomicReference<>();
        int paid;
        try (Lanes lanes = Lanes.builder()
                .aggregate(Shop.orders())
                .aggregate(Shop.stock())
                .aggregate(Shop.payments())
                .processManager(fulfilment)
                .processor(endedOrders(ended))
                .eventStore(events)
                .deadLetterQueue(parked)
                .commandSettings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED))
                .deadlines((gateway, queue) -> {
                    DeadlineRunner made = DeadlineRunner.create(
                            deadlines,
                            gateway,
                            queue,
                            Clock.systemUTC(),
                            Schedulers.parallel(),
                            DeadlineRunner.Settings.DEFAULT.withPollInterval(Duration.ofMillis(100)));
                    runner.set(made);
                    return made;
                })
                .build()
                .start()) {
            paid = placeAndPay(lanes.gateway(), settings);
            long deadline =
                    System.nanoTime() + settings.paymentTimeout().plus(WAIT).toNanos();
            while (ended.size() < settings.orders() && System.nanoTime() < deadline) {
                Mono.delay(Duration.ofMillis(50)).block();
            }
        } // the runner stops with the runtime, before the dispatchers
        long fired = Objects.requireNonNull(runner.get(), "the deadline runner").fired();
        return audit(settings, events, deadlines, fulfilment, paid, fired, out);
    }

    private static String orderId(int i) {
        return "order-" + i;
    }

    private static String sku(int i) {
        return "sku-" + (i % SKUS);
    }

    /** Receives stock for about half the units ordered, then places every order; pays 7 in 10. */
    private static int placeAndPay(CommandGateway gateway, Settings settings) {
        int perSku = Math.max(1, settings.orders() * 2 / SKUS / 2);
        for (int s = 0; s < SKUS; s++) {
            gateway.send(Shop.stock(sku(s)), new ReceiveStock(perSku), WaitStage.PROCESSED)
                    .block(WAIT);
        }
        AtomicInteger paid = new AtomicInteger();
        Flux.range(0, settings.orders())
                .flatMap(
                        i -> {
                            Mono<?> placed = gateway.send(
                                    Shop.order(orderId(i)), new PlaceOrder(sku(i), 1 + i % 3), WaitStage.PROCESSED);
                            if (i % 10 >= 7) {
                                return placed;
                            }
                            return placed.then(gateway.send(
                                            Shop.payment("payment-" + i),
                                            new Pay(orderId(i), 10L * (1 + i % 3)),
                                            WaitStage.PROCESSED))
                                    .doOnSuccess(result -> paid.incrementAndGet());
                        },
                        settings.clients())
                .then()
                .block(WAIT.multipliedBy(4));
        return paid.get();
    }

    /** Counts the orders that ended, for the wait (the audit reads the store). */
    private static EventProcessor endedOrders(Set<String> ended) {
        return EventProcessor.builder("ended-orders", ProcessorKind.HANDLER)
                .on(
                        Shop.ORDER,
                        OrderShipped.class,
                        (shipped, context) -> Mono.fromRunnable(() -> ended.add(shipped.orderId())))
                .on(
                        Shop.ORDER,
                        OrderCancelled.class,
                        (cancelled, context) -> Mono.fromRunnable(() -> ended.add(cancelled.orderId())))
                .build();
    }

    private static List<Object> load(EventStore store, AggregateId id) {
        List<Object> payloads = new ArrayList<>();
        for (DomainEventStream stream :
                Objects.requireNonNull(store.load(id, 1).collectList().block(WAIT))) {
            stream.events().forEach(event -> payloads.add(event.payload()));
        }
        return payloads;
    }

    private static boolean audit(
            Settings settings,
            EventStore store,
            DeadlineStore deadlines,
            ProcessManager<Fulfilment> fulfilment,
            int paid,
            long fired,
            PrintWriter out) {
        int shipped = 0;
        int cancelled = 0;
        List<String> notEndedOnce = new ArrayList<>();
        List<String> handledTwice = new ArrayList<>();
        List<String> shippedUnpaid = new ArrayList<>();
        int reached = 0;
        for (int i = 0; i < settings.orders(); i++) {
            List<Object> order = load(store, Shop.order(orderId(i)));
            long ships = order.stream().filter(OrderShipped.class::isInstance).count();
            long cancels =
                    order.stream().filter(OrderCancelled.class::isInstance).count();
            shipped += (int) ships;
            cancelled += (int) cancels;
            if (ships + cancels != 1) {
                notEndedOnce.add(orderId(i) + " (shipped " + ships + ", cancelled " + cancels + ")");
            }
            if (ships == 1
                    && load(store, Shop.payment("payment-" + i)).stream()
                            .noneMatch(PaymentReceived.class::isInstance)) {
                shippedUnpaid.add(orderId(i));
            }
            Set<String> seen = new HashSet<>();
            for (Object event : load(store, fulfilment.instance(orderId(i)))) {
                if (event instanceof ProcessEvent.DeadlineReached deadline) {
                    reached++;
                    if (!seen.add(deadline.deadlineId())) {
                        handledTwice.add(deadline.deadlineId());
                    }
                }
            }
        }
        List<String> stockLost = stockAudit(store);
        int pending = Objects.requireNonNull(deadlines.pending().block(WAIT)).size();
        out.println("Orders        " + settings.orders() + " by " + settings.clients() + " clients, " + paid
                + " paid; payment timeout " + settings.paymentTimeout());
        out.println("Ended         shipped " + shipped + ", cancelled " + cancelled);
        out.println("Deadlines     handled " + reached + " (runner fired " + fired + "), pending " + pending);
        List<Boolean> checks = List.of(
                check(out, "every order shipped or cancelled, never both", notEndedOnce),
                check(
                        out,
                        "no deadline handled twice, none left",
                        pending == 0 ? handledTwice : List.of(pending + " pending")),
                check(out, "stock conserved", stockLost),
                check(out, "only paid orders shipped", shippedUnpaid));
        boolean passed = !checks.contains(false);
        out.println("Result        " + (passed ? "PASS" : "FAIL"));
        out.flush();
        return passed;
    }

    /** Per SKU: received = available + shipped, and nothing is held at the end. */
    private static List<String> stockAudit(EventStore store) {
        AggregateDefinition<Shop.Stock> definition = Shop.stock();
        List<String> lost = new ArrayList<>();
        for (int s = 0; s < SKUS; s++) {
            AggregateId id = Shop.stock(sku(s));
            List<Object> history = load(store, id);
            AggregateState<Shop.Stock> state = definition.evolve(definition.initial(id), history.size(), history);
            int received = 0;
            int shipped = 0;
            for (Object event : history) {
                if (event instanceof StockReceived r) {
                    received += r.quantity();
                } else if (event instanceof StockShipped sent) {
                    shipped += sent.quantity();
                }
            }
            Shop.Stock stock = state.state();
            if (received != stock.available() + shipped || !stock.reserved().isEmpty()) {
                lost.add(sku(s) + ": received " + received + ", available " + stock.available() + ", shipped " + shipped
                        + ", still held " + stock.reserved());
            }
        }
        return lost;
    }

    private static boolean check(PrintWriter out, String name, List<String> violations) {
        if (violations.isEmpty()) {
            out.println("PASS  " + name);
            return true;
        }
        out.println("FAIL  " + name + ": " + violations.size() + " violation(s), e.g. "
                + violations.subList(0, Math.min(5, violations.size())));
        return false;
    }
}
