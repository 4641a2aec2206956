package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.api.NonRecoverableException;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Events stored by older releases of an application are read by the current one as its current classes: a class
 * renamed since, and a field changed since, through the store's type names and chain of upcasters. Every {@link
 * EventStore} that encodes payloads (with stable type names and upcasters) should pass it; the codec is the store's
 * own, so the suite names no serialization library.
 *
 * <p>Three releases of a wallet's "money in" event, and the codec a subclass must give the store of each ({@link
 * #storeAt(Release)}):
 *
 * <ol>
 *   <li>{@link Release#FIRST}: {@link LegacyMoneyIn}{@code (amount)}, in whole units, stored under its Java class name
 *       at revision 0 (no registration);
 *   <li>{@link Release#SECOND}: the class renamed {@link MoneyInV1}{@code (amount)} and registered as {@link #MONEY_IN}
 *       at revision 1; one upcaster reads {@code LegacyMoneyIn}'s class name at revision 0 as {@link #MONEY_IN} at
 *       revision 1 (the same fields);
 *   <li>{@link Release#CURRENT}: {@link MoneyIn}{@code (cents, note)} registered as {@link #MONEY_IN} at revision 2;
 *       the upcaster of the second release, and one from {@link #MONEY_IN} revision 1 to 2: {@code cents = amount *
 *       100}, {@code note = ""}.
 * </ol>
 *
 * <p>And {@link Release#CURRENT_WITHOUT_UPCASTERS}, the current release with its upcasters forgotten: the registration
 * of {@link MoneyIn} only.
 *
 * <p>Every test works on fresh aggregate ids; a store may be shared between tests as long as {@link Release#CURRENT}
 * can read every stream it holds (the {@code readAll} tests read it all from position 0).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
public abstract class UpcastingContract {

    /** The aggregate type of the suite's streams. */
    protected static final NamedAggregate WALLET = NamedAggregate.of("upcasting", "wallet");

    /** The stable type name of the money-in event from the second release on. */
    public static final String MONEY_IN = "wallet.MoneyIn";

    /** Release 1: as first written, stored under its class name. */
    public record LegacyMoneyIn(long amount) {}

    /** Release 2: renamed and registered as {@link #MONEY_IN} revision 1, still in whole units. */
    public record MoneyInV1(long amount) {}

    /** Release 3, current: {@link #MONEY_IN} revision 2, cents instead of whole units, and a note. */
    public record MoneyIn(long cents, String note) {}

    /** The release whose classes, type names and upcasters a store reads and writes with. */
    public enum Release {
        FIRST,
        SECOND,
        CURRENT,
        CURRENT_WITHOUT_UPCASTERS
    }

    /**
     * A store that reads and writes as {@code release} does (see the class comment), over the same data as every other
     * store this method returns: what one release appends the next call's store reads. Each test uses the store it got
     * before it calls this method again, so a subclass may return one store whose codec switches to {@code release}.
     */
    protected abstract EventStore storeAt(Release release);

    /** How long one store operation may take before the test fails. */
    protected Duration timeout() {
        return Duration.ofSeconds(10);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // fixtures

    private static AggregateId newWallet() {
        return AggregateId.of(WALLET, "w-" + UUID.randomUUID());
    }

    private static DomainEventStream stream(AggregateId id, int version, Object... payloads) {
        List<DomainEvent> events = new ArrayList<>(payloads.length);
        for (Object payload : payloads) {
            events.add(new DomainEvent(events.size() + 1, payload));
        }
        return new DomainEventStream(
                "stream-" + UUID.randomUUID(),
                id,
                version,
                "req-" + UUID.randomUUID(),
                "cmd-" + UUID.randomUUID(),
                events,
                Instant.now().truncatedTo(ChronoUnit.MILLIS),
                Map.of("release", Integer.toString(version)));
    }

    private void append(Release release, DomainEventStream stream) {
        storeAt(release).append(stream).block(timeout());
    }

    private List<Object> loaded(Release release, AggregateId id) {
        return payloadsOf(present(storeAt(release).load(id, 1).collectList().block(timeout())));
    }

    private List<PositionedStream> readAllOf(EventStore store, AggregateId id) {
        return present(store.readAll(0, Integer.MAX_VALUE)
                .filter(positioned -> positioned.aggregateId().equals(id))
                .collectList()
                .block(timeout()));
    }

    private List<PositionedStream> readAllOfWallets(EventStore store, AggregateId id) {
        return present(store.readAll(0, Integer.MAX_VALUE, Set.of(WALLET.materialize()))
                .filter(positioned -> positioned.aggregateId().equals(id))
                .collectList()
                .block(timeout()));
    }

    private static List<Object> payloadsOf(List<DomainEventStream> streams) {
        return streams.stream().flatMap(stream -> stream.payloads().stream()).toList();
    }

    private static List<Object> payloadsOfPositioned(List<PositionedStream> streams) {
        return payloadsOf(streams.stream().map(PositionedStream::stream).toList());
    }

    private static <T> T present(@Nullable T value) {
        if (value == null) {
            throw new AssertionError("expected a value, the publisher completed empty");
        }
        return value;
    }

    /** Appends one event of each release, versions 1 to 3, each by its release. */
    private List<DomainEventStream> appendOneOfEachRelease(AggregateId id) {
        List<DomainEventStream> streams = List.of(
                stream(id, 1, new LegacyMoneyIn(5)),
                stream(id, 2, new MoneyInV1(7)),
                stream(id, 3, new MoneyIn(250, "tip")));
        append(Release.FIRST, streams.get(0));
        append(Release.SECOND, streams.get(1));
        append(Release.CURRENT, streams.get(2));
        return streams;
    }

    private static final List<Object> ONE_OF_EACH_RELEASE_NOW =
            List.of(new MoneyIn(500, ""), new MoneyIn(700, ""), new MoneyIn(250, "tip"));

    // ---------------------------------------------------------------------------------------------------------------
    // tests

    @Test
    void eventsOfEveryReleaseLoadAsTheCurrentClassWithTheChangedFieldConverted() {
        AggregateId id = newWallet();
        List<DomainEventStream> appended = appendOneOfEachRelease(id);

        assertThat(loaded(Release.CURRENT, id)).containsExactlyElementsOf(ONE_OF_EACH_RELEASE_NOW);
        EventStore current = storeAt(Release.CURRENT);
        assertThat(current.load(id, 2, 2).collectList().block(timeout()))
                .as("a range")
                .extracting(DomainEventStream::payloads)
                .containsExactly(List.of(new MoneyIn(700, "")));
        assertThat(present(current.findByRequestId(id, appended.get(0).requestId())
                                .block(timeout()))
                        .payloads())
                .as("the stream of a request id")
                .containsExactly(new MoneyIn(500, ""));
    }

    @Test
    void readAllReadsTheEventsOfEveryReleaseAsTheCurrentClassToo() {
        AggregateId id = newWallet();
        List<DomainEventStream> appended = appendOneOfEachRelease(id);
        EventStore current = storeAt(Release.CURRENT);

        List<PositionedStream> all = readAllOf(current, id);
        assertThat(payloadsOfPositioned(all)).containsExactlyElementsOf(ONE_OF_EACH_RELEASE_NOW);
        assertThat(all)
                .as("the stream around the payloads is kept")
                .extracting(PositionedStream::stream)
                .extracting(DomainEventStream::id, DomainEventStream::requestId, DomainEventStream::headers)
                .containsExactlyElementsOf(appended.stream()
                        .map(stream -> tuple(stream.id(), stream.requestId(), stream.headers()))
                        .toList());
        assertThat(payloadsOfPositioned(readAllOfWallets(current, id)))
                .as("readAll of some aggregate types")
                .containsExactlyElementsOf(ONE_OF_EACH_RELEASE_NOW);
    }

    @Test
    void eachReleaseStillReadsWhatItAndTheReleasesBeforeItWrote() {
        AggregateId id = newWallet();
        append(Release.FIRST, stream(id, 1, new LegacyMoneyIn(5)));
        assertThat(loaded(Release.FIRST, id))
                .as("without registrations a class name reads as before")
                .containsExactly(new LegacyMoneyIn(5));

        append(Release.SECOND, stream(id, 2, new MoneyInV1(7)));
        assertThat(loaded(Release.SECOND, id)).containsExactly(new MoneyInV1(5), new MoneyInV1(7));
    }

    @Test
    void anEventWhoseStoredRevisionHasNoUpcasterFailsToReadNamingTypeAndRevision() {
        AggregateId id = newWallet();
        DomainEventStream stored = stream(id, 1, new MoneyInV1(5));
        append(Release.SECOND, stored);
        EventStore forgetful = storeAt(Release.CURRENT_WITHOUT_UPCASTERS);

        assertThatThrownBy(() -> forgetful.load(id, 1).collectList().block(timeout()))
                .isInstanceOf(NonRecoverableException.class)
                .hasMessageContaining(MONEY_IN + "@1");
        assertThatThrownBy(
                        () -> forgetful.findByRequestId(id, stored.requestId()).block(timeout()))
                .isInstanceOf(NonRecoverableException.class)
                .hasMessageContaining(MONEY_IN + "@1");
        assertThat(loaded(Release.CURRENT, id))
                .as("the stored event is intact: the release with the upcaster reads it")
                .containsExactly(new MoneyIn(500, ""));
    }

    @Test
    void anEventOfARevisionNewerThanTheReaderKnowsFailsToReadNamingTypeAndRevisionNotMisread() {
        AggregateId id = newWallet();
        append(Release.CURRENT, stream(id, 1, new MoneyIn(250, "tip")));
        EventStore older = storeAt(Release.SECOND);

        assertThatThrownBy(() -> older.load(id, 1).collectList().block(timeout()))
                .isInstanceOf(NonRecoverableException.class)
                .hasMessageContaining(MONEY_IN + "@2");
    }

    @Test
    void aCurrentEventRoundTripsThroughEveryReadPath() {
        AggregateId id = newWallet();
        DomainEventStream first = stream(id, 1, new MoneyIn(250, "tip"), new MoneyIn(1, "dime \"quoted\" ü"));
        DomainEventStream second = stream(id, 2, new MoneyIn(0, ""));
        append(Release.CURRENT, first);
        append(Release.CURRENT, second);
        EventStore current = storeAt(Release.CURRENT);

        assertThat(current.load(id, 1).collectList().block(timeout())).containsExactly(first, second);
        assertThat(current.findByRequestId(id, second.requestId()).block(timeout()))
                .isEqualTo(second);
        assertThat(readAllOf(current, id)).extracting(PositionedStream::stream).containsExactly(first, second);
        assertThat(readAllOfWallets(current, id))
                .extracting(PositionedStream::stream)
                .containsExactly(first, second);
    }
}
