package dev.lanes.postgres;

import static dev.lanes.test.UpcastingContract.MONEY_IN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.test.UpcastingContract.LegacyMoneyIn;
import dev.lanes.test.UpcastingContract.MoneyIn;
import dev.lanes.test.UpcastingContract.Release;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What {@link JacksonEventSerializer} adds to the stores' {@link dev.lanes.test.UpcastingContract}
 * (run by {@link PostgresUpcastingContractTest} and {@link InMemoryUpcastingContractTest}): the wording of its failures, and the serializer as a {@link dev.lanes.eventsourcing.PayloadCodec}.
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
}
