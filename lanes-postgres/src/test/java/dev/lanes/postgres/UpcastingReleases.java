package dev.lanes.postgres;

import static dev.lanes.test.UpcastingContract.MONEY_IN;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.eventsourcing.types.SerializedEvent;
import dev.lanes.test.UpcastingContract.LegacyMoneyIn;
import dev.lanes.test.UpcastingContract.MoneyIn;
import dev.lanes.test.UpcastingContract.MoneyInV1;
import dev.lanes.test.UpcastingContract.Release;

/** The {@link EventTypes} of each release of {@link dev.lanes.test.UpcastingContract}, and a serializer with them. */
final class UpcastingReleases {
    private UpcastingReleases() {}

    static JacksonEventSerializer serializer(Release release) {
        return new JacksonEventSerializer(JacksonEventSerializer.defaultObjectMapper(), eventTypes(release));
    }

    static EventTypes eventTypes(Release release) {
        return switch (release) {
            case FIRST -> EventTypes.NONE;
            case SECOND ->
                EventTypes.builder()
                        .register(MoneyInV1.class, MONEY_IN, 1)
                        .upcaster(LegacyMoneyIn.class.getName(), 0, event -> event.as(MONEY_IN, 1))
                        .build();
            case CURRENT ->
                EventTypes.builder()
                        .register(MoneyIn.class, MONEY_IN, 2)
                        .upcaster(LegacyMoneyIn.class.getName(), 0, event -> event.as(MONEY_IN, 1))
                        .upcaster(MONEY_IN, 1, UpcastingReleases::wholeUnitsToCents)
                        .build();
            case CURRENT_WITHOUT_UPCASTERS ->
                EventTypes.builder().register(MoneyIn.class, MONEY_IN, 2).build();
        };
    }

    /** Revision 1 had {@code amount} in whole units; revision 2 has {@code cents} and a {@code note}. */
    private static SerializedEvent<JsonNode> wholeUnitsToCents(SerializedEvent<JsonNode> event) {
        ObjectNode payload = (ObjectNode) event.payload();
        payload.put("cents", payload.remove("amount").asLong() * 100);
        payload.put("note", "");
        return event.as(MONEY_IN, 2);
    }
}
