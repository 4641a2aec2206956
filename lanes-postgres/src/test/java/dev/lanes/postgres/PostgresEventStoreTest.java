package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.Snapshot;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.test.EventStoreContract.Deposited;
import dev.lanes.test.EventStoreContract.Opened;
import dev.lanes.test.logging.LogCapture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.test.StepVerifier;

/** What the contract does not cover: paging, tenants, the stored shape, serializers, closing. */
class PostgresEventStoreTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private static final NamedAggregate ACCOUNT = NamedAggregate.of("pg", "account");

    private final PostgresEventStore shared = TestDatabase.store();

    private static AggregateId newId() {
        return AggregateId.of(ACCOUNT, "acc-" + UUID.randomUUID());
    }

    private static DomainEventStream stream(AggregateId id, int version, Object... payloads) {
        List<DomainEvent> events = new ArrayList<>();
        for (Object payload : payloads) {
            events.add(new DomainEvent(events.size() + 1, payload));
        }
        return new DomainEventStream(
                "s-" + UUID.randomUUID(),
                id,
                version,
                "r-" + UUID.randomUUID(),
                "c-" + UUID.randomUUID(),
                events,
                Instant.now().truncatedTo(ChronoUnit.MICROS),
                Map.of("k", "v"));
    }

    private static void appendVersions(PostgresEventStore store, AggregateId id, int count) {
        for (int v = 1; v <= count; v++) {
            store.append(stream(id, v, new Deposited(v))).block(TIMEOUT);
        }
    }

    @Test
    void loadsReadOnePageAtATimeAndOnlyOnDemand() {
        RecordingDataSource recording = new RecordingDataSource(shared.dataSource());
        try (PostgresEventStore store = new PostgresEventStore(
                recording, new JacksonEventSerializer(), PostgresOptions.DEFAULT.withPageSize(3))) {
            AggregateId id = newId();
            appendVersions(store, id, 10);
            String page = "ORDER BY version LIMIT";

            StepVerifier.create(store.load(id, 1).map(DomainEventStream::version), 0)
                    .thenRequest(2)
                    .expectNext(1, 2)
                    .then(() -> assertThat(recording.statementsContaining(page)).isEqualTo(1))
                    .thenRequest(5)
                    .expectNext(3, 4, 5, 6, 7)
                    .then(() -> assertThat(recording.statementsContaining(page)).isEqualTo(3))
                    .thenCancel()
                    .verify(TIMEOUT);
            assertThat(recording.statementsContaining(page))
                    .as("no page read after cancel")
                    .isEqualTo(3);

            StepVerifier.create(store.load(id, 1).map(DomainEventStream::version))
                    .expectNext(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
                    .verifyComplete();
            assertThat(recording.statementsContaining(page)).as("4 pages of 3").isEqualTo(3 + 4);

            StepVerifier.create(store.load(id, 2, 7).map(DomainEventStream::version))
                    .expectNext(2, 3, 4, 5, 6, 7)
                    .verifyComplete();
            assertThat(recording.statementsContaining(page))
                    .as("a range ending on a page boundary reads no further page")
                    .isEqualTo(3 + 4 + 2);
        }
    }

    @Test
    void theTenantIsPartOfTheAggregatesIdentity() {
        String rawId = "acc-" + UUID.randomUUID();
        AggregateId inA = AggregateId.of(ACCOUNT, rawId, "tenant-a");
        AggregateId inB = AggregateId.of(ACCOUNT, rawId, "tenant-b");
        DomainEventStream a = stream(inA, 1, new Opened("a", 1, false));
        DomainEventStream b = stream(inB, 1, new Opened("b", 2, true));

        shared.append(a).block(TIMEOUT);
        shared.append(b).block(TIMEOUT);

        assertThat(shared.load(inA, 1).collectList().block(TIMEOUT)).containsExactly(a);
        assertThat(shared.load(inB, 1).collectList().block(TIMEOUT)).containsExactly(b);
        assertThat(shared.load(AggregateId.of(ACCOUNT, rawId), 1).collectList().block(TIMEOUT))
                .isEmpty();
    }

    @Test
    void aStreamIsOneRowWithItsEventsAsAJsonbArrayOfTypedPayloads() throws SQLException {
        AggregateId id = AggregateId.of(ACCOUNT, "acc-" + UUID.randomUUID(), "t1");
        shared.append(stream(id, 1, new Opened("Ada", 3, true), new Deposited(42)))
                .block(TIMEOUT);

        try (Connection connection = shared.dataSource().getConnection();
                PreparedStatement query =
                        connection.prepareStatement("SELECT count(*), min(jsonb_array_length(events)),"
                                + " min(events->0->>'type'), min(events->0->'payload'->>'owner'),"
                                + " min((events->1->'payload'->>'amount')::bigint), min(events->1->>'sequence'),"
                                + " min(headers->>'k')"
                                + " FROM lanes_event_streams WHERE tenant_id = ? AND context_name = ? AND aggregate_name = ?"
                                + " AND aggregate_id = ?")) {
            PostgresEventStore.bindKey(query, 1, id);
            try (ResultSet row = query.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getInt(1)).as("rows").isEqualTo(1);
                assertThat(row.getInt(2)).as("events").isEqualTo(2);
                assertThat(row.getString(3)).isEqualTo(Opened.class.getName());
                assertThat(row.getString(4)).isEqualTo("Ada");
                assertThat(row.getLong(5)).isEqualTo(42);
                assertThat(row.getString(6)).isEqualTo("2");
                assertThat(row.getString(7)).isEqualTo("v");
            }
        }
    }

    /** A payload with Java time and Optional fields. */
    public record Scheduled(LocalDate day, Instant at, Optional<String> note) {}

    @Test
    void theDefaultSerializerHandlesJavaTimeAndOptional() {
        AggregateId id = newId();
        DomainEventStream stream = stream(
                id,
                1,
                new Scheduled(
                        LocalDate.of(2024, 2, 29), Instant.parse("2024-02-29T12:00:00.123456Z"), Optional.of("x")),
                new Scheduled(LocalDate.of(1999, 12, 31), Instant.EPOCH, Optional.empty()));

        shared.append(stream).block(TIMEOUT);

        assertThat(shared.load(id, 1).collectList().block(TIMEOUT)).containsExactly(stream);
    }

    /** Jackson cannot write an object without properties. */
    public static final class Opaque {}

    @Test
    void anUnstorablePayloadFailsNonRecoverablyAndStoresNothing() {
        AggregateId id = newId();

        StepVerifier.create(shared.append(stream(id, 1, new Opened("nul \u0000 inside", 1, false))))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(EventSerializationException.class)
                        .hasMessageContaining("22P05")
                        .satisfies(e -> assertThat(((EventSerializationException) e).isRecoverable())
                                .isFalse()))
                .verify(TIMEOUT);
        StepVerifier.create(shared.append(stream(id, 1, new Opaque())))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(EventSerializationException.class)
                        .hasMessageContaining(Opaque.class.getName()))
                .verify(TIMEOUT);

        StepVerifier.create(shared.load(id, 1)).verifyComplete();
    }

    @Test
    void aStoredEventOfAnUnknownTypeFailsTheLoadNonRecoverably() throws SQLException {
        AggregateId id = newId();
        shared.append(stream(id, 1, new Deposited(1))).block(TIMEOUT);
        try (Connection connection = shared.dataSource().getConnection();
                PreparedStatement update = connection.prepareStatement("UPDATE lanes_event_streams"
                        + " SET events = jsonb_set(events, '{0,type}', '\"com.example.Gone\"')"
                        + " WHERE tenant_id = ? AND context_name = ? AND aggregate_name = ? AND aggregate_id = ?")) {
            PostgresEventStore.bindKey(update, 1, id);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }

        StepVerifier.create(shared.load(id, 1))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(EventSerializationException.class)
                        .hasMessageContaining("com.example.Gone"))
                .verify(TIMEOUT);
    }

    /** Stores payload types under short aliases, as an application with renamed classes might. */
    private static final class AliasingSerializer implements EventSerializer {
        private final JacksonEventSerializer jackson = new JacksonEventSerializer();

        @Override
        public String typeName(Object payload) {
            return payload instanceof Deposited
                    ? "deposited.v1"
                    : payload.getClass().getName();
        }

        @Override
        public String serialize(Object payload) {
            return jackson.serialize(payload);
        }

        @Override
        public Object deserialize(String typeName, String json) {
            return jackson.deserialize(typeName.equals("deposited.v1") ? Deposited.class.getName() : typeName, json);
        }
    }

    @Test
    void theSerializerIsPluggable() throws SQLException {
        try (PostgresEventStore store = new PostgresEventStore(shared.dataSource(), new AliasingSerializer())) {
            AggregateId id = newId();
            DomainEventStream stream = stream(id, 1, new Deposited(5), new Opened("o", 1, true));

            store.append(stream).block(TIMEOUT);

            assertThat(store.load(id, 1).collectList().block(TIMEOUT)).containsExactly(stream);
            try (Connection connection = shared.dataSource().getConnection();
                    PreparedStatement query = connection.prepareStatement(
                            "SELECT events->0->>'type' FROM lanes_event_streams WHERE tenant_id = ? AND"
                                    + " context_name = ? AND aggregate_name = ? AND aggregate_id = ?")) {
                PostgresEventStore.bindKey(query, 1, id);
                try (ResultSet row = query.executeQuery()) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getString(1)).isEqualTo("deposited.v1");
                }
            }
        }
    }

    @Test
    void anUnreadableSnapshotIsIgnoredSoTheAggregateIsReplayedInstead() throws SQLException {
        PostgresSnapshotStore snapshots = shared.snapshotStore();
        AggregateId id = newId();
        snapshots
                .save(new Snapshot(id, 3, new Deposited(3), Instant.now().truncatedTo(ChronoUnit.MILLIS)))
                .block(TIMEOUT);
        try (Connection connection = shared.dataSource().getConnection();
                PreparedStatement update = connection.prepareStatement("UPDATE lanes_snapshots SET state_type ="
                        + " 'com.example.Renamed' WHERE tenant_id = ? AND context_name = ? AND aggregate_name = ?"
                        + " AND aggregate_id = ?")) {
            PostgresEventStore.bindKey(update, 1, id);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }

        StepVerifier.create(snapshots.load(id)).verifyComplete();
        assertThat(logs.lines(Level.WARN))
                .as("the unreadable snapshot is a warning naming the aggregate, its version and its state type")
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .startsWith("Ignoring the snapshot of " + id + " at version 3: its state (com.example.Renamed)"
                                + " cannot be read")
                        .endsWith("the aggregate is replayed from its events instead"));
    }

    @Test
    void aClosedStoreRejectsCallsButTheDataSourceItWasGivenStaysOpen() throws SQLException {
        PostgresEventStore store = new PostgresEventStore(shared.dataSource());
        store.close();
        store.close();

        StepVerifier.create(store.append(stream(newId(), 1, new Deposited(1))))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("closed"))
                .verify(TIMEOUT);
        try (Connection connection = shared.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            assertThat(statement.execute("SELECT 1")).isTrue();
        }
    }

    @Test
    void nullArgumentsAreRejectedAtOnceOrAsErrorSignals() {
        assertThatThrownBy(() -> shared.append(null).block(TIMEOUT)).isInstanceOf(NullPointerException.class);
    }
}
