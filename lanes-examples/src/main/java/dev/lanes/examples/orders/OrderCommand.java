package dev.lanes.examples.orders;

/** What orders, stock and payments are asked to do. */
public sealed interface OrderCommand {

    /** To an order: place it for {@code quantity} of {@code sku}. */
    record PlaceOrder(String sku, int quantity) implements OrderCommand {}

    /** To an order: ship it (sent by the fulfilment process). */
    record ShipOrder() implements OrderCommand {}

    /** To an order: cancel it (sent by the fulfilment process). */
    record CancelOrder(String reason) implements OrderCommand {}

    /** To a stock item: add {@code quantity} to what is available. */
    record ReceiveStock(int quantity) implements OrderCommand {}

    /** To a stock item: hold {@code quantity} for an order, if available. */
    record ReserveStock(String orderId, int quantity) implements OrderCommand {}

    /** To a stock item: the order's reservation leaves the warehouse. */
    record ShipStock(String orderId) implements OrderCommand {}

    /** To a stock item: give the order's reservation back (or refuse a later one). */
    record ReleaseStock(String orderId) implements OrderCommand {}

    /** To a payment: the customer paid for an order. */
    record Pay(String orderId, long amount) implements OrderCommand {}
}
