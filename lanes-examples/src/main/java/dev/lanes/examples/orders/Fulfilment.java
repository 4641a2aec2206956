package dev.lanes.examples.orders;

import dev.lanes.api.NamedAggregate;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.examples.orders.OrderCommand.CancelOrder;
import dev.lanes.examples.orders.OrderCommand.ReleaseStock;
import dev.lanes.examples.orders.OrderCommand.ReserveStock;
import dev.lanes.examples.orders.OrderCommand.ShipOrder;
import dev.lanes.examples.orders.OrderCommand.ShipStock;
import dev.lanes.examples.orders.OrderEvent.OrderPlaced;
import dev.lanes.examples.orders.OrderEvent.PaymentReceived;
import dev.lanes.examples.orders.OrderEvent.StockReserved;
import dev.lanes.examples.orders.OrderEvent.StockUnavailable;
import dev.lanes.process.ProcessContext;
import dev.lanes.process.ProcessManager;
import java.time.Clock;
import java.time.Duration;

/**
 * The order-fulfilment process, one instance per order id: an order placed reserves its stock and waits for the
 * payment under a deadline; paid and reserved, it ships; out of stock, or no payment in time, it cancels the order and
 * gives the stock back.
 *
 * @param orderId the business key
 * @param sku what the order is for
 * @param quantity how many
 * @param reserved whether the stock holds the units
 * @param paid whether the payment arrived
 */
public record Fulfilment(String orderId, String sku, int quantity, boolean reserved, boolean paid) {

    /** The process managers' aggregate type, {@code shop.fulfilment}. */
    public static final NamedAggregate TYPE = NamedAggregate.of("shop", "fulfilment");

    /** How long an order waits for its payment. */
    public static final Duration PAYMENT_TIMEOUT = Duration.ofMinutes(15);

    /** The deadline's name. */
    public static final String PAYMENT_DUE = "payment-due";

    /** Before the order was placed. */
    public static Fulfilment start(String orderId) {
        return new Fulfilment(orderId, "", 0, false, false);
    }

    /** The process with its deadlines in {@code deadlines}, {@code paymentTimeout} after the placement on {@code clock}. */
    public static ProcessManager<Fulfilment> process(DeadlineStore deadlines, Clock clock, Duration paymentTimeout) {
        return ProcessManager.builder("order-fulfilment", TYPE, Fulfilment.class, Fulfilment::start)
                .startOn(Shop.ORDER, OrderPlaced.class, OrderPlaced::orderId, (state, placed, context) -> {
                    context.send(Shop.stock(placed.sku()), new ReserveStock(placed.orderId(), placed.quantity()))
                            .scheduleAfter(PAYMENT_DUE, paymentTimeout);
                    return new Fulfilment(placed.orderId(), placed.sku(), placed.quantity(), false, false);
                })
                .on(
                        Shop.STOCK,
                        StockReserved.class,
                        StockReserved::orderId,
                        (state, reserved, context) -> state.paid() ? state.ship(context) : state.with(true, false))
                .on(Shop.STOCK, StockUnavailable.class, StockUnavailable::orderId, (state, unavailable, context) -> {
                    context.send(Shop.order(state.orderId()), new CancelOrder("out of stock"))
                            .end("out of stock");
                    return state;
                })
                .on(Shop.PAYMENT, PaymentReceived.class, PaymentReceived::orderId, (state, paid, context) -> {
                    context.cancel(PAYMENT_DUE);
                    return state.reserved() ? state.ship(context) : state.with(false, true);
                })
                .onDeadline(PAYMENT_DUE, (state, due, context) -> {
                    context.send(Shop.order(state.orderId()), new CancelOrder("no payment in time"))
                            .send(Shop.stock(state.sku()), new ReleaseStock(state.orderId()))
                            .end("no payment in time");
                    return state;
                })
                .deadlines(deadlines, clock)
                .build();
    }

    private Fulfilment with(boolean reservedNow, boolean paidNow) {
        return new Fulfilment(orderId, sku, quantity, reserved || reservedNow, paid || paidNow);
    }

    private Fulfilment ship(ProcessContext context) {
        context.send(Shop.order(orderId), new ShipOrder())
                .send(Shop.stock(sku), new ShipStock(orderId))
                .end("shipped");
        return new Fulfilment(orderId, sku, quantity, true, true);
    }
}
