package dev.lanes.examples.orders;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.examples.orders.OrderCommand.CancelOrder;
import dev.lanes.examples.orders.OrderCommand.Pay;
import dev.lanes.examples.orders.OrderCommand.PlaceOrder;
import dev.lanes.examples.orders.OrderCommand.ReceiveStock;
import dev.lanes.examples.orders.OrderCommand.ReleaseStock;
import dev.lanes.examples.orders.OrderCommand.ReserveStock;
import dev.lanes.examples.orders.OrderCommand.ShipOrder;
import dev.lanes.examples.orders.OrderCommand.ShipStock;
import dev.lanes.examples.orders.OrderEvent.OrderCancelled;
import dev.lanes.examples.orders.OrderEvent.OrderPlaced;
import dev.lanes.examples.orders.OrderEvent.OrderShipped;
import dev.lanes.examples.orders.OrderEvent.PaymentReceived;
import dev.lanes.examples.orders.OrderEvent.StockReceived;
import dev.lanes.examples.orders.OrderEvent.StockReleased;
import dev.lanes.examples.orders.OrderEvent.StockReserved;
import dev.lanes.examples.orders.OrderEvent.StockShipped;
import dev.lanes.examples.orders.OrderEvent.StockUnavailable;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.CommandRejectedException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The shop's aggregates: orders, stock items (one per SKU) and payments. */
public final class Shop {
    public static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    public static final NamedAggregate STOCK = NamedAggregate.of("shop", "stock");
    public static final NamedAggregate PAYMENT = NamedAggregate.of("shop", "payment");

    private Shop() {}

    public static AggregateId order(String orderId) {
        return AggregateId.of(ORDER, orderId);
    }

    public static AggregateId stock(String sku) {
        return AggregateId.of(STOCK, sku);
    }

    public static AggregateId payment(String paymentId) {
        return AggregateId.of(PAYMENT, paymentId);
    }

    /** An order's state: placed, then shipped or cancelled, never both. */
    public record Order(String id, String status) {}

    /** A stock item: available units, reservations per order, and orders released before they reserved. */
    public record Stock(String sku, int available, Map<String, Integer> reserved, Set<String> released) {}

    /** A rule of the shop was broken: the command is refused. */
    public static final class ShopRuleViolation extends CommandRejectedException {
        private static final long serialVersionUID = 1L;

        public ShopRuleViolation(String message) {
            super(message);
        }
    }

    /** Orders: placed once; shipped or cancelled once, never both. */
    public static AggregateDefinition<Order> orders() {
        return AggregateDefinition.<Order>builder(ORDER, id -> new Order(id.id(), "new"))
                .handle(PlaceOrder.class, (order, place) -> {
                    require(order.status().equals("new"), "order " + order.id() + " is already " + order.status());
                    return List.of(new OrderPlaced(order.id(), place.sku(), place.quantity()));
                })
                .handle(ShipOrder.class, (order, ship) -> {
                    require(order.status().equals("placed"), "cannot ship order " + order.id() + ": " + order.status());
                    return List.of(new OrderShipped(order.id()));
                })
                .handle(CancelOrder.class, (order, cancel) -> {
                    require(
                            order.status().equals("placed"),
                            "cannot cancel order " + order.id() + ": " + order.status());
                    return List.of(new OrderCancelled(order.id(), cancel.reason()));
                })
                .apply(OrderPlaced.class, (order, e) -> new Order(order.id(), "placed"))
                .apply(OrderShipped.class, (order, e) -> new Order(order.id(), "shipped"))
                .apply(OrderCancelled.class, (order, e) -> new Order(order.id(), "cancelled"))
                .build();
    }

    /** Stock: reservations never exceed what is available; a release before the reservation refuses it. */
    public static AggregateDefinition<Stock> stock() {
        return AggregateDefinition.<Stock>builder(STOCK, id -> new Stock(id.id(), 0, Map.of(), Set.of()))
                .handle(
                        ReceiveStock.class,
                        (stock, receive) -> List.of(new StockReceived(stock.sku(), receive.quantity())))
                .handle(ReserveStock.class, (stock, reserve) -> {
                    if (stock.reserved().containsKey(reserve.orderId())) {
                        return List.of(); // already held for this order
                    }
                    return stock.released().contains(reserve.orderId()) || stock.available() < reserve.quantity()
                            ? List.of(new StockUnavailable(reserve.orderId(), stock.sku()))
                            : List.of(new StockReserved(reserve.orderId(), stock.sku(), reserve.quantity()));
                })
                .handle(ShipStock.class, (stock, ship) -> {
                    Integer held = stock.reserved().get(ship.orderId());
                    if (held == null) {
                        throw new ShopRuleViolation(
                                "no stock of " + stock.sku() + " is held for order " + ship.orderId());
                    }
                    return List.of(new StockShipped(ship.orderId(), stock.sku(), held));
                })
                .handle(
                        ReleaseStock.class,
                        (stock, release) -> List.of(new StockReleased(
                                release.orderId(), stock.sku(), stock.reserved().getOrDefault(release.orderId(), 0))))
                .apply(
                        StockReceived.class,
                        (stock, e) -> new Stock(
                                stock.sku(), stock.available() + e.quantity(), stock.reserved(), stock.released()))
                .apply(
                        StockReserved.class,
                        (stock, e) -> new Stock(
                                stock.sku(),
                                stock.available() - e.quantity(),
                                with(stock.reserved(), e.orderId(), e.quantity()),
                                stock.released()))
                .apply(StockUnavailable.class, (stock, e) -> stock)
                .apply(
                        StockShipped.class,
                        (stock, e) -> new Stock(
                                stock.sku(),
                                stock.available(),
                                without(stock.reserved(), e.orderId()),
                                stock.released()))
                .apply(
                        StockReleased.class,
                        (stock, e) -> new Stock(
                                stock.sku(),
                                stock.available() + e.quantity(),
                                without(stock.reserved(), e.orderId()),
                                plus(stock.released(), e.orderId())))
                .build();
    }

    /** Payments: one per payment id, each for an order. */
    public static AggregateDefinition<String> payments() {
        return AggregateDefinition.<String>builder(PAYMENT, id -> "")
                .handle(Pay.class, (paid, pay) -> {
                    require(paid.isEmpty(), "payment for order " + paid + " is already taken");
                    return List.of(new PaymentReceived(pay.orderId(), pay.amount()));
                })
                .apply(PaymentReceived.class, (paid, e) -> e.orderId())
                .build();
    }

    private static void require(boolean rule, String violation) {
        if (!rule) {
            throw new ShopRuleViolation(violation);
        }
    }

    private static Map<String, Integer> with(Map<String, Integer> map, String key, int value) {
        Map<String, Integer> copy = new HashMap<>(map);
        copy.put(key, value);
        return Map.copyOf(copy);
    }

    private static Map<String, Integer> without(Map<String, Integer> map, String key) {
        Map<String, Integer> copy = new HashMap<>(map);
        copy.remove(key);
        return Map.copyOf(copy);
    }

    private static Set<String> plus(Set<String> set, String value) {
        Set<String> copy = new HashSet<>(set);
        copy.add(value);
        return Set.copyOf(copy);
    }
}
