package dev.lanes.examples.inventory;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.examples.inventory.ItemCommand.Receive;
import dev.lanes.examples.inventory.ItemCommand.Release;
import dev.lanes.examples.inventory.ItemCommand.Reserve;
import dev.lanes.examples.inventory.ItemEvent.Received;
import dev.lanes.examples.inventory.ItemEvent.Released;
import dev.lanes.examples.inventory.ItemEvent.Reserved;
import dev.lanes.modeling.AggregateDefinition;
import java.util.List;

/** The item aggregate as a decider: one item (a SKU) per aggregate id, its commands handled one at a time, in order. */
public final class Inventory {
    /** The item aggregate, {@code inventory.item}: {@code item} in the endpoint's paths. */
    public static final NamedAggregate ITEM = NamedAggregate.of("inventory", "item");

    private Inventory() {}

    public static AggregateId item(String sku) {
        return AggregateId.of(ITEM, sku);
    }

    public static AggregateDefinition<Item> definition() {
        return AggregateDefinition.<Item>builder(ITEM, id -> Item.NEW)
                .handle(Receive.class, (item, receive) -> List.of(new Received(positive(receive.quantity()))))
                .handle(Reserve.class, Inventory::reserve)
                .handle(Release.class, Inventory::release)
                .apply(Received.class, (item, e) -> new Item(item.onHand() + e.quantity(), item.reserved()))
                .apply(Reserved.class, (item, e) -> new Item(item.onHand(), item.reserved() + e.quantity()))
                .apply(Released.class, (item, e) -> new Item(item.onHand(), item.reserved() - e.quantity()))
                .build();
    }

    private static List<ItemEvent> reserve(Item item, Reserve reserve) {
        long quantity = positive(reserve.quantity());
        if (quantity > item.available()) {
            throw new StockRuleViolation(
                    "not enough stock: " + item.available() + " available, " + quantity + " to reserve");
        }
        return List.of(new Reserved(quantity));
    }

    private static List<ItemEvent> release(Item item, Release release) {
        long quantity = positive(release.quantity());
        if (quantity > item.reserved()) {
            throw new StockRuleViolation(
                    "not that much reserved: " + item.reserved() + " reserved, " + quantity + " to release");
        }
        return List.of(new Released(quantity));
    }

    private static long positive(long quantity) {
        if (quantity <= 0) {
            throw new StockRuleViolation("the quantity must be positive: " + quantity);
        }
        return quantity;
    }
}
