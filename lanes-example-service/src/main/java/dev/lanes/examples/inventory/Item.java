package dev.lanes.examples.inventory;

/** An item's state, rebuilt from its events: what is on hand and how much of it is reserved. */
public record Item(long onHand, long reserved) {
    public static final Item NEW = new Item(0, 0);

    /** On hand and not reserved. */
    public long available() {
        return onHand - reserved;
    }
}
