package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Events stored by older releases of an application (a class since renamed, a field since changed) are read as the
 * current classes through a chain of upcasters; data written under class names stays readable.
 */
class UpcastingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final NamedAggregate WALLET = NamedAggregate.of("upcasting", "wallet");

    /** Release 1: the class as it was first written, stored under its class name (no registration). */
    public record LegacyMoneyIn(long amount) {}

    /** Release 2: renamed and registered, still whole units. */
    public record MoneyInV1(long amount) {}

    /** Release 3, current: cents instead of whole units, and a note. */
    public record MoneyIn(long cents, String note) {}

    private static final String NAME = "wallet.MoneyIn";

    private static EventTypes release2() {
        return EventTypes.builder()
                .register(MoneyInV1.class, NAME, 1)
                .upcaster(LegacyMoneyIn.class.getName(), 0, event -> event.as(NAME, 1))
                .build();
    }

    private static EventTypes release3() {
        return EventTypes.builder()
                .register(MoneyIn.class, NAME, 2)
                .upcaster(LegacyMoneyIn.class.getName(), 0, event -> event.as(NAME, 1))
                .upcaster(NAME, 1, event -> {
                    ObjectNode payload = (ObjectNode) event.payload();
                    payload.put("cents", payload.remove("amount").asLong() * 100);
                    payload.put("note", "");
                    return event.as(NAME, 2);
                })
                .build();
    }

    /** A database of its own: its payload types are unreadable to the shared store's readers. */
    private static final String DATABASE = TestDatabase.createDatabase();

    private static PostgresEventStore storeWith(EventTypes types) {
        PostgresEventStore store = PostgresEventStore.connect(
                TestDatabase.jdbcUrl(DATABASE),
                TestDatabase.USER,
                null,
                PostgresOptions.DEFAULT.withPoolSize(2),
                new JacksonEventSerializer(JacksonEventSerializer.defaultObjectMapper(), types));
        store.migrate();
        return store;
    }

    private static DomainEventStream stream(AggregateId id, int version, Object payload) {
        return new DomainEventStream(
                "stream-" + UUID.randomUUID(),
                id,
                version,
                "req-" + UUID.randomUUID(),
                "cmd-" + UUID.randomUUID(),
                List.of(new DomainEvent(1, payload)),
                Instant.now().truncatedTo(ChronoUnit.MILLIS),
                Map.of());
    }

    private static List<Object> payloads(PostgresEventStore store, AggregateId id) {
        return payloads(store, id, Integer.MAX_VALUE);
    }

    private static List<Object> payloads(PostgresEventStore store, AggregateId id, int toVersion) {
        return store.load(id, 1, toVersion)
                .flatMapIterable(DomainEventStream::payloads)
                .collectList()
                .block(TIMEOUT);
    }

    @Test
    void eventsOfThreeReleasesReadAsTheCurrentClassThroughTheChain() {
        AggregateId id = AggregateId.of(WALLET, "w-" + UUID.randomUUID());
        try (PostgresEventStore first = storeWith(EventTypes.NONE);
                PostgresEventStore second = storeWith(release2());
                PostgresEventStore current = storeWith(release3())) {
            first.append(stream(id, 1, new LegacyMoneyIn(5))).block(TIMEOUT);
            second.append(stream(id, 2, new MoneyInV1(7))).block(TIMEOUT);
            current.append(stream(id, 3, new MoneyIn(250, "tip"))).block(TIMEOUT);

            assertThat(payloads(current, id))
                    .containsExactly(new MoneyIn(500, ""), new MoneyIn(700, ""), new MoneyIn(250, "tip"));
            assertThat(payloads(second, id, 2))
                    .as("release 2 still reads what it and release 1 wrote")
                    .containsExactly(new MoneyInV1(5), new MoneyInV1(7));
            assertThat(payloads(first, id, 1))
                    .as("without registrations a class name is read as before")
                    .containsExactly(new LegacyMoneyIn(5));
            assertThatThrownBy(() -> payloads(second, id))
                    .as("a newer revision than the reader knows is refused, not misread")
                    .isInstanceOf(EventSerializationException.class)
                    .hasMessageContaining(NAME + " is at revision 1");
            assertThat(current.readAll(0, Integer.MAX_VALUE)
                            .filter(positioned -> positioned.aggregateId().equals(id))
                            .flatMapIterable(positioned -> positioned.stream().payloads())
                            .collectList()
                            .block(TIMEOUT))
                    .as("readAll upcasts too")
                    .containsExactly(new MoneyIn(500, ""), new MoneyIn(700, ""), new MoneyIn(250, "tip"));
        }
    }

    @Test
    void aRevisionWithoutAnUpcasterFailsNamingTheStoredAndTheCurrentRevision() {
        AggregateId id = AggregateId.of(WALLET, "w-" + UUID.randomUUID());
        EventTypes withoutUpcasters =
                EventTypes.builder().register(MoneyIn.class, NAME, 2).build();
        try (PostgresEventStore older = storeWith(release2());
                PostgresEventStore current = storeWith(withoutUpcasters)) {
            older.append(stream(id, 1, new MoneyInV1(5))).block(TIMEOUT);

            assertThatThrownBy(() -> payloads(current, id))
                    .isInstanceOf(EventSerializationException.class)
                    .hasMessageContaining(NAME + "@1")
                    .hasMessageContaining("revision 2");
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
            EventTypes.Builder builder = EventTypes.builder().register(MoneyIn.class, NAME, 2);

            assertThatThrownBy(() -> builder.register(MoneyInV1.class, NAME, 1))
                    .hasMessageContaining(NAME)
                    .hasMessageContaining(MoneyIn.class.getName());
            assertThatThrownBy(() -> builder.register(MoneyIn.class, "other", 1))
                    .hasMessageContaining("already registered as " + NAME);
            assertThatThrownBy(() -> builder.register(LegacyMoneyIn.class, "legacy", 0))
                    .hasMessageContaining("revision of legacy must be at least 1: 0");
            assertThatThrownBy(() -> builder.upcaster(NAME, 1, event -> event).upcaster(NAME, 1, event -> event))
                    .hasMessageContaining(NAME + "@1 already has an upcaster");
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
