package dev.lanes.eventsourcing.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The registry and the upcaster chain on their own, with a map as the payload's representation (the Jackson codecs of
 * {@code lanes-postgres} and {@code lanes-kafka} use JSON trees; their tests run the same chain on those).
 */
class EventTypesTest {
    private static final String MONEY_IN = "wallet.MoneyIn";

    record MoneyIn(long cents) {}

    record MoneyInV1(long amount) {}

    record Legacy(long amount) {}

    /** Revision 1 had {@code amount} in whole units; revision 2 has {@code cents}. */
    private static SerializedEvent<Map<String, Object>> wholeUnitsToCents(SerializedEvent<Map<String, Object>> event) {
        Map<String, Object> payload = new HashMap<>(event.payload());
        payload.put("cents", ((Long) payload.remove("amount")) * 100);
        return new SerializedEvent<>(MONEY_IN, 2, payload);
    }

    private static final EventTypes CURRENT = EventTypes.builder()
            .register(MoneyIn.class, MONEY_IN, 2)
            .upcaster(Legacy.class.getName(), 0, event -> event.as(MONEY_IN, 1))
            .upcaster(MONEY_IN, 1, EventTypesTest::wholeUnitsToCents)
            .build();

    private static SerializedEvent<Map<String, Object>> stored(String type, int revision, Map<String, Object> payload) {
        return new SerializedEvent<>(type, revision, payload);
    }

    @Nested
    class Upcasting {

        @Test
        void aStoredEventGoesThroughEveryUpcasterRegisteredForWhatTheLastOneReturned() {
            assertThat(CURRENT.upcast(stored(Legacy.class.getName(), 0, Map.of("amount", 5L))))
                    .isEqualTo(stored(MONEY_IN, 2, Map.of("cents", 500L)));
        }

        @Test
        void theCurrentRevisionAndAnUnregisteredClassNameReadAsStored() {
            SerializedEvent<Map<String, Object>> current = stored(MONEY_IN, 2, Map.of("cents", 1L));
            SerializedEvent<Map<String, Object>> className = stored("com.example.Other", 0, Map.of());

            assertThat(CURRENT.upcast(current)).isSameAs(current);
            assertThat(CURRENT.upcast(className)).isSameAs(className);
        }

        @Test
        void aRevisionWithoutAnUpcasterFailsNamingTheStoredAndTheCurrentRevision() {
            EventTypes withoutUpcasters =
                    EventTypes.builder().register(MoneyIn.class, MONEY_IN, 2).build();

            assertThatThrownBy(() -> withoutUpcasters.upcast(stored(MONEY_IN, 1, Map.of("amount", 5L))))
                    .isInstanceOf(UpcastingException.class)
                    .hasMessageContaining("Stored event " + MONEY_IN + "@1 reads as " + MONEY_IN + "@1")
                    .hasMessageContaining("is at revision 2: no upcaster from " + MONEY_IN + "@1");
        }

        @Test
        void aNewerRevisionThanTheReaderKnowsIsRefusedNamingTheRevisionItKnows() {
            EventTypes older =
                    EventTypes.builder().register(MoneyInV1.class, MONEY_IN, 1).build();

            assertThatThrownBy(() -> older.upcast(stored(MONEY_IN, 2, Map.of("cents", 5L))))
                    .isInstanceOf(UpcastingException.class)
                    .hasMessageContaining(MONEY_IN + " is at revision 1");
        }

        @Test
        void anUpcasterThatThrowsFailsTheReadNamingTheStoredEventAndKeepingTheCause() {
            IllegalStateException broken = new IllegalStateException("broken");
            EventTypes types = EventTypes.builder()
                    .upcaster("a", 0, event -> {
                        throw broken;
                    })
                    .build();

            assertThatThrownBy(() -> types.upcast(stored("a", 0, Map.of())))
                    .isInstanceOf(UpcastingException.class)
                    .hasMessage("Upcaster of a@0 failed reading stored event a@0: broken")
                    .hasCause(broken);
        }

        @Test
        void anUpcasterWrittenForAnotherRepresentationFailsTheReadInsteadOfEscaping() {
            EventTypes types = EventTypes.builder()
                    .upcaster(
                            "a",
                            0,
                            (SerializedEvent<String> event) ->
                                    event.as(event.payload().trim(), 1))
                    .build();

            assertThatThrownBy(() -> types.upcast(stored("a", 0, Map.of())))
                    .isInstanceOf(UpcastingException.class)
                    .hasMessageContaining("Upcaster of a@0 failed")
                    .hasCauseInstanceOf(ClassCastException.class);
        }

        @Test
        void anUpcasterChainThatComesBackToARevisionIsAFailureNotALoop() {
            EventTypes types = EventTypes.builder()
                    .upcaster("a", 0, event -> event.as("b", 0))
                    .upcaster("b", 0, event -> event.as("a", 0))
                    .build();

            assertThatThrownBy(() -> types.upcast(stored("a", 0, Map.of())))
                    .isInstanceOf(UpcastingException.class)
                    .hasMessageContaining("Upcasting a@0 loops at a@0");
        }
    }

    @Nested
    class Registrations {

        @Test
        void theDefaultNameIsTheSimpleClassNameAtRevisionOne() {
            EventTypes types = EventTypes.builder().register(MoneyIn.class).build();

            assertThat(types.registration(MoneyIn.class))
                    .isEqualTo(new EventTypes.Registration(MoneyIn.class, "MoneyIn", 1));
            assertThat(types.registration("MoneyIn")).isEqualTo(types.registration(MoneyIn.class));
            assertThat(types.registration(Legacy.class)).isNull();
        }

        @Test
        void aNameOrAClassRegisteredTwiceAndARevisionBelowOneAreRefusedNamingThem() {
            EventTypes.Builder builder = EventTypes.builder().register(MoneyIn.class, MONEY_IN, 2);

            assertThatThrownBy(() -> builder.register(MoneyInV1.class, MONEY_IN, 1))
                    .hasMessageContaining(MONEY_IN)
                    .hasMessageContaining(MoneyIn.class.getName());
            assertThatThrownBy(() -> builder.register(MoneyIn.class, "other", 1))
                    .hasMessageContaining("already registered as " + MONEY_IN);
            assertThatThrownBy(() -> builder.register(Legacy.class, "legacy", 0))
                    .hasMessageContaining("revision of legacy must be at least 1: 0");
            assertThatThrownBy(
                            () -> builder.upcaster(MONEY_IN, 1, event -> event).upcaster(MONEY_IN, 1, event -> event))
                    .hasMessageContaining(MONEY_IN + "@1 already has an upcaster");
            assertThatThrownBy(() -> builder.upcaster(MONEY_IN, -1, event -> event))
                    .hasMessageContaining("revision of " + MONEY_IN + " must not be negative: -1");
        }
    }
}
