package dev.lanes.postgres;

import static dev.lanes.test.UpcastingContract.MONEY_IN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.test.UpcastingContract.LegacyMoneyIn;
import dev.lanes.test.UpcastingContract.MoneyIn;
import dev.lanes.test.UpcastingContract.MoneyInV1;
import dev.lanes.test.UpcastingContract.Release;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What {@link EventTypes} and {@link JacksonEventSerializer} add to the stores' {@link dev.lanes.test.UpcastingContract}
 * (run by {@link PostgresUpcastingContractTest} and {@link InMemoryUpcastingContractTest}): registration rules, the
 * wording of their failures, and the serializer as a {@link dev.lanes.eventsourcing.PayloadCodec}.
 */
class UpcastingTest {

    @Test
    void aRevisionWithoutAnUpcasterFailsNamingTheStoredAndTheCurrentRevision() {
        JacksonEventSerializer withoutUpcasters = UpcastingReleases.serializer(Release.CURRENT_WITHOUT_UPCASTERS);

        assertThatThrownBy(() -> withoutUpcasters.decode(new EncodedPayload(MONEY_IN, 1, "{\"amount\":5}")))
                .isInstanceOf(EventSerializationException.class)
                .hasMessageContaining(MONEY_IN + "@1")
                .hasMessageContaining("revision 2");
    }

    @Test
    void aNewerRevisionThanTheReaderKnowsIsRefusedNamingTheRevisionItKnows() {
        JacksonEventSerializer second = UpcastingReleases.serializer(Release.SECOND);

        assertThatThrownBy(() -> second.decode(new EncodedPayload(MONEY_IN, 2, "{\"cents\":5,\"note\":\"\"}")))
                .isInstanceOf(EventSerializationException.class)
                .hasMessageContaining(MONEY_IN + " is at revision 1");
    }

    @Nested
    class AsPayloadCodec {
        private final JacksonEventSerializer current = UpcastingReleases.serializer(Release.CURRENT);

        @Test
        void encodesARegisteredClassUnderItsNameAndRevisionAndAnyOtherUnderItsClassNameUnrevised() {
            assertThat(current.encode(new MoneyIn(250, "tip")))
                    .isEqualTo(new EncodedPayload(MONEY_IN, 2, "{\"cents\":250,\"note\":\"tip\"}"));
            assertThat(current.encode(new LegacyMoneyIn(5)))
                    .isEqualTo(new EncodedPayload(LegacyMoneyIn.class.getName(), 0, "{\"amount\":5}"));
        }

        @Test
        void decodesThroughTheUpcastersAsThePostgresStoreReads() {
            assertThat(current.decode(new EncodedPayload(LegacyMoneyIn.class.getName(), 0, "{\"amount\":5}")))
                    .isEqualTo(new MoneyIn(500, ""));
            assertThat(current.decode(current.encode(new MoneyIn(250, "tip")))).isEqualTo(new MoneyIn(250, "tip"));
        }

        @Test
        void storedDataThatIsNotJsonFailsNamingTheStoredTypeAndRevision() {
            assertThatThrownBy(() -> current.decode(new EncodedPayload(MONEY_IN, 2, "{not json")))
                    .isInstanceOf(EventSerializationException.class)
                    .hasMessageContaining("Cannot read " + MONEY_IN + "@2 from JSON");
        }
    }

    @Nested
    class Registrations {

        @Test
        void theDefaultNameIsTheSimpleClassNameAtRevisionOne() {
            EventTypes types = EventTypes.builder().register(MoneyIn.class).build();

            assertThat(types.registration(MoneyIn.class))
                    .isEqualTo(new EventTypes.Registration(MoneyIn.class, "MoneyIn", 1));
        }

        @Test
        void aNameOrAClassRegisteredTwiceAndARevisionBelowOneAreRefusedNamingThem() {
            EventTypes.Builder builder = EventTypes.builder().register(MoneyIn.class, MONEY_IN, 2);

            assertThatThrownBy(() -> builder.register(MoneyInV1.class, MONEY_IN, 1))
                    .hasMessageContaining(MONEY_IN)
                    .hasMessageContaining(MoneyIn.class.getName());
            assertThatThrownBy(() -> builder.register(MoneyIn.class, "other", 1))
                    .hasMessageContaining("already registered as " + MONEY_IN);
            assertThatThrownBy(() -> builder.register(LegacyMoneyIn.class, "legacy", 0))
                    .hasMessageContaining("revision of legacy must be at least 1: 0");
            assertThatThrownBy(
                            () -> builder.upcaster(MONEY_IN, 1, event -> event).upcaster(MONEY_IN, 1, event -> event))
                    .hasMessageContaining(MONEY_IN + "@1 already has an upcaster");
        }

        @Test
        void anUpcasterChainThatComesBackToARevisionIsAFailureNotALoop() {
            EventTypes types = EventTypes.builder()
                    .upcaster("a", 0, event -> event.as("b", 0))
                    .upcaster("b", 0, event -> event.as("a", 0))
                    .build();
            SerializedEvent stored = new SerializedEvent(
                    "a", 0, JacksonEventSerializer.defaultObjectMapper().createObjectNode());

            assertThatThrownBy(() -> types.upcast(stored))
                    .isInstanceOf(EventSerializationException.class)
                    .hasMessageContaining("Upcasting a@0 loops at a@0");
        }
    }
}
