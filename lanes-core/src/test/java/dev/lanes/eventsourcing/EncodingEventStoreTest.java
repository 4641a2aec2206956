package dev.lanes.eventsourcing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** {@link EventStores#inMemory(PayloadCodec)}: payloads encoded on append, decoded on every read, failures named. */
class EncodingEventStoreTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate ACCOUNT = NamedAggregate.of("codec", "account");
    private static final NamedAggregate CARD = NamedAggregate.of("codec", "card");

    record Named(String name) {}

    record Counted(int count) {}

    record Unknown() {}

    /**
     * Named at revision 2 (its data is the name), Counted at 1 (its data the count); revision 1 of Named stored the
     * name upper-cased and is read lower-cased. A name {@code poison} is written but cannot be read.
     */
    static final class TinyCodec implements PayloadCodec {
        @Override
        public EncodedPayload encode(Object payload) {
            if (payload instanceof Named named) {
                return new EncodedPayload("named", 2, named.name());
            }
            if (payload instanceof Counted counted) {
                return new EncodedPayload("counted", 1, Integer.toString(counted.count()));
            }
            throw new IllegalArgumentException(
                    "TinyCodec cannot encode " + payload.getClass().getName());
        }

        @Override
        public Object decode(EncodedPayload stored) {
            switch (stored.type() + "@" + stored.revision()) {
                case "named@1":
                    return new Named(stored.data().toLowerCase(Locale.ROOT));
                case "named@2":
                    if (stored.data().equals("poison")) {
                        throw new IllegalStateException("TinyCodec cannot read " + stored + ": poison");
                    }
                    return new Named(stored.data());
                case "counted@1":
                    return new Counted(Integer.parseInt(stored.data()));
                default:
                    throw new IllegalStateException("TinyCodec knows no " + stored);
            }
        }
    }

    private final EventStore store = EventStores.inMemory(new TinyCodec());

    private static AggregateId newId(NamedAggregate type) {
        return AggregateId.of(type, "a-" + UUID.randomUUID());
    }

    private static DomainEventStream stream(AggregateId id, int version, Object... payloads) {
        List<DomainEvent> events = new ArrayList<>();
        for (Object payload : payloads) {
            events.add(new DomainEvent(events.size() + 1, payload));
        }
        return new DomainEventStream(
                "stream-" + UUID.randomUUID(),
                id,
                version,
                "req-" + version + "-" + UUID.randomUUID(),
                "cmd-" + UUID.randomUUID(),
                events,
                Instant.parse("2026-01-02T03:04:05.678Z"),
                Map.of("h", "v"));
    }

    private List<PositionedStream> readAllOf(AggregateId id) {
        return store.readAll(0, Integer.MAX_VALUE)
                .filter(positioned -> positioned.aggregateId().equals(id))
                .collectList()
                .block(TIMEOUT);
    }

    @Test
    void appendedStreamsComeBackEqualThroughEveryReadPathAsNewlyDecodedPayloads() {
        AggregateId id = newId(ACCOUNT);
        Named named = new Named("ada");
        DomainEventStream first = stream(id, 1, named, new Counted(3));
        DomainEventStream second = stream(id, 2, new Counted(4));
        store.append(first).block(TIMEOUT);
        store.append(second).block(TIMEOUT);

        assertThat(store.load(id, 1).collectList().block(TIMEOUT)).containsExactly(first, second);
        assertThat(store.load(id, 1).blockFirst(TIMEOUT).events().get(0).payload())
                .as("decoded on read, not the appended object")
                .isEqualTo(named)
                .isNotSameAs(named);
        assertThat(readAllOf(id)).extracting(PositionedStream::stream).containsExactly(first, second);
        assertThat(store.readAll(0, Integer.MAX_VALUE, Set.of(ACCOUNT.materialize()))
                        .filter(positioned -> positioned.aggregateId().equals(id))
                        .map(PositionedStream::stream)
                        .collectList()
                        .block(TIMEOUT))
                .containsExactly(first, second);
        assertThat(store.findByRequestId(id, second.requestId()).block(TIMEOUT)).isEqualTo(second);
        assertThat(store.hasRequestId(id, first.requestId()).block(TIMEOUT)).isTrue();
    }

    @Test
    void aPayloadTheCodecCannotEncodeFailsTheAppendNamingItAndStoresNothingOfTheStream() {
        AggregateId id = newId(ACCOUNT);
        DomainEventStream stream = stream(id, 1, new Named("ada"), new Unknown());

        assertThatThrownBy(() -> store.append(stream).block(TIMEOUT))
                .isInstanceOf(PayloadCodecException.class)
                .hasMessageContaining("Cannot encode event 2 (" + Unknown.class.getName() + ") of " + id + " v1")
                .hasMessageContaining("TinyCodec cannot encode " + Unknown.class.getName())
                .hasMessageContaining("nothing of the stream was stored")
                .hasCauseInstanceOf(IllegalArgumentException.class);

        assertThat(store.load(id, 1).collectList().block(TIMEOUT)).isEmpty();
        assertThat(readAllOf(id)).isEmpty();
        assertThat(store.hasRequestId(id, stream.requestId()).block(TIMEOUT)).isFalse();
        DomainEventStream retried = new DomainEventStream(
                stream.id(),
                id,
                1,
                stream.requestId(),
                stream.commandId(),
                List.of(new DomainEvent(1, new Named("ada"))),
                stream.createdAt(),
                stream.headers());
        store.append(retried).block(TIMEOUT);
        assertThat(store.load(id, 1).collectList().block(TIMEOUT)).containsExactly(retried);
    }

    @Test
    void aStoredPayloadTheCodecCannotDecodeFailsEveryReadOfItNamingAggregateVersionAndStoredTypeAndRevision() {
        AggregateId id = newId(ACCOUNT);
        DomainEventStream readable = stream(id, 1, new Named("ada"));
        DomainEventStream poisoned = stream(id, 2, new Counted(1), new Named("poison"));
        store.append(readable).block(TIMEOUT);
        store.append(poisoned).block(TIMEOUT);
        String expected = "Cannot decode event 2 of " + id + " v2, stored as named@2: TinyCodec cannot read named@2";

        StepVerifier.create(store.load(id, 1))
                .expectNext(readable)
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(PayloadCodecException.class)
                        .hasMessageContaining(expected)
                        .hasCauseInstanceOf(IllegalStateException.class))
                .verify(TIMEOUT);
        StepVerifier.create(store.readAll(0, Integer.MAX_VALUE))
                .thenConsumeWhile(positioned -> !positioned.aggregateId().equals(id)
                        || positioned.stream().equals(readable))
                .expectErrorSatisfies(error -> assertThat(error).hasMessageContaining(expected))
                .verify(TIMEOUT);
        StepVerifier.create(store.findByRequestId(id, poisoned.requestId()))
                .expectErrorSatisfies(error -> assertThat(error).hasMessageContaining(expected))
                .verify(TIMEOUT);
        assertThat(store.hasRequestId(id, poisoned.requestId()).block(TIMEOUT))
                .as("reads no payload, decodes nothing")
                .isTrue();
    }

    @Test
    void aReadOfSomeTypesFiltersBeforeDecodingSoAStreamOfAnotherTypeThatCannotBeDecodedDoesNotStopIt() {
        AggregateId card = newId(CARD);
        AggregateId account = newId(ACCOUNT);
        store.append(stream(card, 1, new Named("poison"))).block(TIMEOUT);
        DomainEventStream readable = stream(account, 1, new Named("ada"));
        store.append(readable).block(TIMEOUT);

        assertThat(store.readAll(0, Integer.MAX_VALUE, Set.of(ACCOUNT.materialize()))
                        .filter(positioned -> positioned.aggregateId().equals(account))
                        .map(PositionedStream::stream)
                        .collectList()
                        .block(TIMEOUT))
                .containsExactly(readable);
    }

    @Test
    void anOlderRevisionIsReadAsTheCurrentOne() {
        AggregateId id = newId(ACCOUNT);
        EventStore oldRelease = EventStores.inMemory(new PayloadCodec() {
            @Override
            public EncodedPayload encode(Object payload) {
                return new EncodedPayload("named", 1, ((Named) payload).name().toUpperCase(Locale.ROOT));
            }

            @Override
            public Object decode(EncodedPayload stored) {
                return new TinyCodec().decode(stored);
            }
        });
        oldRelease.append(stream(id, 1, new Named("ada"))).block(TIMEOUT);

        assertThat(oldRelease.load(id, 1).blockFirst(TIMEOUT).payloads()).containsExactly(new Named("ada"));
    }

    @Test
    void aCodecThatAnswersNullIsAFailureNamingTheEvent() {
        EventStore nullCodec = EventStores.inMemory(new PayloadCodec() {
            @Override
            public EncodedPayload encode(Object payload) {
                return null;
            }

            @Override
            public Object decode(EncodedPayload stored) {
                return null;
            }
        });
        AggregateId id = newId(ACCOUNT);

        assertThatThrownBy(
                        () -> nullCodec.append(stream(id, 1, new Named("ada"))).block(TIMEOUT))
                .isInstanceOf(PayloadCodecException.class)
                .hasMessageContaining("Cannot encode event 1 (" + Named.class.getName() + ") of " + id + " v1")
                .hasMessageContaining("the codec encoded the payload as null");
    }

    @Test
    void aNullCodecIsRefused() {
        assertThatThrownBy(() -> EventStores.inMemory(null)).hasMessage("codec");
    }

    @Test
    void anEncodedPayloadIsValidatedAndShowsItsTypeAndRevisionButNotItsData() {
        assertThat(new EncodedPayload("wallet.MoneyIn", 2, "{\"secret\":1}")).hasToString("wallet.MoneyIn@2");
        assertThatThrownBy(() -> new EncodedPayload(" ", 1, "")).hasMessage("type must not be blank: ' '");
        assertThatThrownBy(() -> new EncodedPayload("t", -1, "")).hasMessage("revision must not be negative: -1 (t)");
    }
}
