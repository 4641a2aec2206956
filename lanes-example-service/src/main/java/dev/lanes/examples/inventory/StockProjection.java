package dev.lanes.examples.inventory;

import dev.lanes.examples.inventory.ItemEvent.Received;
import dev.lanes.examples.inventory.ItemEvent.Released;
import dev.lanes.examples.inventory.ItemEvent.Reserved;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The stock of every item, held in memory. With PostgreSQL the starter feeds it from the store and replays the whole
 * store at every start ({@code lanes.processors.feed.StockProjection=replay}, the default for a projection), so it
 * equals the store after a restart, a crash included; the health is {@code OUT_OF_SERVICE} until it has caught up.
 *
 * <p>One item's events arrive one at a time, in version order; different items concurrently. It remembers the last
 * version it applied per item, so a stream delivered again is applied once.
 */
public final class StockProjection {
    /** The processor's name, as in {@code lanes.processors.feed.StockProjection}. */
    public static final String NAME = "StockProjection";

    private final Map<String, Row> rows = new ConcurrentHashMap<>();

    /** One item's row: on hand, reserved, available (on hand and not reserved), and the item's version applied. */
    public record Row(long onHand, long reserved, long available, int version) {
        static final Row EMPTY = new Row(0, 0, 0, 0);

        Row with(long onHand, long reserved, int version) {
            return new Row(onHand, reserved, onHand - reserved, version);
        }
    }

    public EventProcessor processor() {
        return EventProcessor.builder(NAME, ProcessorKind.PROJECTION)
                .on(
                        Inventory.ITEM,
                        ItemEvent.class,
                        (event, context) -> Mono.fromRunnable(() -> rows.compute(
                                context.aggregateId().id(), (sku, row) -> apply(row, event, context.version()))))
                .build();
    }

    private static Row apply(@Nullable Row row, ItemEvent event, int version) {
        Row current = row == null ? Row.EMPTY : row;
        if (version <= current.version()) {
            return current; // delivered again: applied already
        }
        if (event instanceof Received received) {
            return current.with(current.onHand() + received.quantity(), current.reserved(), version);
        }
        if (event instanceof Reserved reserved) {
            return current.with(current.onHand(), current.reserved() + reserved.quantity(), version);
        }
        Released released = (Released) event;
        return current.with(current.onHand(), current.reserved() - released.quantity(), version);
    }

    /** One item's row, or {@code null} if no event of it was applied yet. */
    public @Nullable Row row(String sku) {
        return rows.get(sku);
    }

    /** Every item's row, by SKU: a copy. */
    public Map<String, Row> rows() {
        return Map.copyOf(rows);
    }
}
