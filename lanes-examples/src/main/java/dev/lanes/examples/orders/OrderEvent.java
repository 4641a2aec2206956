package dev.lanes.examples.orders;

/** What happened to orders, stock and payments. */
public sealed interface OrderEvent {

    record OrderPlaced(String orderId, String sku, int quantity) implements OrderEvent {}

    record OrderShipped(String orderId) implements OrderEvent {}

    record OrderCancelled(String orderId, String reason) implements OrderEvent {}

    record StockReceived(String sku, int quantity) implements OrderEvent {}

    record StockReserved(String orderId, String sku, int quantity) implements OrderEvent {}

    record StockUnavailable(String orderId, String sku) implements OrderEvent {}

    record StockShipped(String orderId, String sku, int quantity) implements OrderEvent {}

    record StockReleased(String orderId, String sku, int quantity) implements OrderEvent {}

    record PaymentReceived(String orderId, long amount) implements OrderEvent {}
}
