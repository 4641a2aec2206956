package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.eventsourcing.SegmentCheckpoint;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The behaviour every {@link CheckpointStore} must show: checkpoints per processor name, and one claim holder at a
 * time. Extend it and implement {@link #createStore()}; every test uses fresh processor names, so the store may be
 * shared.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
public abstract class CheckpointStoreContract {
    private static final Duration LEASE = Duration.ofMinutes(5);
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private CheckpointStore store;

    /** The store under test, called once per test; it may be shared between calls. */
    protected abstract CheckpointStore createStore();

    @BeforeEach
    void setUpStore() {
        store = createStore();
    }

    private static String newProcessor() {
        return "processor-" + UUID.randomUUID();
    }

    private boolean claim(String processor, String owner, Duration lease) {
        return Boolean.TRUE.equals(store.claim(processor, owner, lease).block(TIMEOUT));
    }

    private List<SegmentCheckpoint> rows(String processor) {
        return Objects.requireNonNull(store.checkpoints(processor).block(TIMEOUT), "checkpoints");
    }

    private boolean save(String processor, String owner, long position) {
        return Boolean.TRUE.equals(store.save(processor, owner, position).block(TIMEOUT));
    }

    @Test
    void anUnknownProcessorIsAtPositionZeroAndUnclaimed() {
        String processor = newProcessor();

        StepVerifier.create(store.load(processor))
                .expectNext(0L)
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(claim(processor, "a", LEASE)).isTrue();
    }

    @Test
    void onlyTheHolderMayRenewOrSaveUntilItReleases() {
        String processor = newProcessor();
        assertThat(claim(processor, "a", LEASE)).isTrue();

        assertThat(claim(processor, "b", LEASE)).as("b while a holds").isFalse();
        assertThat(claim(processor, "a", LEASE)).as("a renews").isTrue();
        assertThat(save(processor, "a", 42)).isTrue();
        assertThat(save(processor, "b", 99)).as("b saves without the claim").isFalse();
        store.release(processor, "b").block(TIMEOUT); // not b's to release: nothing happens
        assertThat(claim(processor, "b", LEASE)).isFalse();

        store.release(processor, "a").block(TIMEOUT);

        assertThat(claim(processor, "b", LEASE)).as("b after a released").isTrue();
        assertThat(save(processor, "a", 50)).as("a after it released").isFalse();
        assertThat(store.load(processor).block(TIMEOUT)).isEqualTo(42L);
    }

    @Test
    void aSaveMayMoveTheCheckpointBackAsAResetDoes() {
        String processor = newProcessor();
        claim(processor, "a", LEASE);
        save(processor, "a", 1_000);

        assertThat(save(processor, "a", 0)).isTrue();

        assertThat(store.load(processor).block(TIMEOUT)).isZero();
    }

    @Test
    void anExpiredClaimGoesToTheNextInstanceAndTheOldHolderCanNoLongerSave() {
        String processor = newProcessor();
        assertThat(claim(processor, "a", Duration.ofMillis(1))).isTrue();

        Boolean taken = Mono.defer(() -> store.claim(processor, "b", LEASE))
                .filter(Boolean::booleanValue)
                .repeatWhenEmpty(attempts -> attempts.delayElements(Duration.ofMillis(5)))
                .block(TIMEOUT);

        assertThat(taken).as("b once a's lease expired").isTrue();

        assertThat(save(processor, "a", 7)).isFalse();
        assertThat(claim(processor, "a", LEASE)).isFalse();
    }

    @Test
    void ofInstancesRacingForAFreeClaimExactlyOneWins() {
        String processor = newProcessor();
        List<Boolean> won = Flux.range(0, 8)
                .flatMap(i -> store.claim(processor, "instance-" + i, LEASE).subscribeOn(Schedulers.parallel()))
                .collectList()
                .block(TIMEOUT);

        assertThat(won)
                .containsOnly(true, false)
                .filteredOn(Boolean::booleanValue)
                .hasSize(1);
    }

    @Test
    void badArgumentsAreErrorSignalsNamingTheValue() {
        StepVerifier.create(Mono.defer(() -> store.claim(" ", "a", LEASE)))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("processor"))
                .verify(TIMEOUT);
        StepVerifier.create(Mono.defer(() -> store.save(newProcessor(), "a", -1)))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("-1"))
                .verify(TIMEOUT);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // segments

    @Test
    void segmentsAreRecordedOnceAndEachHasItsOwnCheckpointAndClaim() {
        String processor = newProcessor();
        assertThat(store.segments(processor, 4).block(TIMEOUT)).isEqualTo(4);
        assertThat(store.segments(processor, 4).block(TIMEOUT))
                .as("again, the same count")
                .isEqualTo(4);

        assertThat(store.claim(processor, 1, "a", LEASE).block(TIMEOUT)).isTrue();
        assertThat(store.claim(processor, 2, "b", LEASE).block(TIMEOUT)).isTrue();
        assertThat(store.claim(processor, 1, "b", LEASE).block(TIMEOUT))
                .as("b on a's segment")
                .isFalse();
        assertThat(store.save(processor, 1, "a", 10).block(TIMEOUT)).isTrue();
        assertThat(store.save(processor, 2, "a", 20).block(TIMEOUT))
                .as("a on b's segment")
                .isFalse();
        assertThat(store.save(processor, 2, "b", 30).block(TIMEOUT)).isTrue();

        assertThat(store.load(processor, 1).block(TIMEOUT)).isEqualTo(10L);
        assertThat(store.load(processor, 2).block(TIMEOUT)).isEqualTo(30L);
        assertThat(store.load(processor, 3).block(TIMEOUT)).isZero();
        List<SegmentCheckpoint> rows = rows(processor);
        assertThat(rows)
                .extracting(SegmentCheckpoint::segment)
                .containsExactly(new Segment(0, 4), new Segment(1, 4), new Segment(2, 4), new Segment(3, 4));
        assertThat(rows).extracting(SegmentCheckpoint::position).containsExactly(0L, 10L, 30L, 0L);
        assertThat(rows).extracting(SegmentCheckpoint::owner).containsExactly(null, "a", "b", null);
        assertThat(store.processors().block(TIMEOUT)).contains(processor);

        store.release(processor, 1, "a").block(TIMEOUT);
        assertThat(store.claim(processor, 1, "b", LEASE).block(TIMEOUT))
                .as("b after a released")
                .isTrue();
    }

    @Test
    void anotherSegmentCountIsRefusedNamingBoth() {
        String processor = newProcessor();
        store.segments(processor, 8).block(TIMEOUT);

        StepVerifier.create(store.segments(processor, 4))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining(processor)
                        .hasMessageContaining("8")
                        .hasMessageContaining("4"))
                .verify(TIMEOUT);
        assertThat(rows(processor)).hasSize(8);
    }

    @Test
    void aProcessorThatSavedWithoutSegmentsIsSegmentZeroOfOne() {
        String processor = newProcessor();
        claim(processor, "a", LEASE);
        save(processor, "a", 77);

        StepVerifier.create(store.segments(processor, 2))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("2"))
                .verify(TIMEOUT);
        assertThat(store.segments(processor, 1).block(TIMEOUT)).isEqualTo(1);
        assertThat(store.load(processor, 0).block(TIMEOUT)).isEqualTo(77L);
    }

    @Test
    void aSegmentThatIsNotRecordedCannotBeClaimed() {
        String processor = newProcessor();
        store.segments(processor, 2).block(TIMEOUT);

        StepVerifier.create(Mono.defer(() -> store.claim(processor, 2, "a", LEASE)))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("no segment 2"))
                .verify(TIMEOUT);
        StepVerifier.create(store.segments(processor, 3))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("3"))
                .verify(TIMEOUT);
    }

    @Test
    void heartbeatsCountTheLiveInstancesUntilTheyLeaveOrExpire() {
        String processor = newProcessor();
        assertThat(store.heartbeat(processor, "a", LEASE).block(TIMEOUT)).isEqualTo(1);
        assertThat(store.heartbeat(processor, "b", LEASE).block(TIMEOUT)).isEqualTo(2);
        assertThat(store.heartbeat(processor, "c", Duration.ofMillis(1)).block(TIMEOUT))
                .isEqualTo(3);

        Integer alive = Mono.defer(() -> store.heartbeat(processor, "a", LEASE))
                .filter(count -> count == 2)
                .repeatWhenEmpty(attempts -> attempts.delayElements(Duration.ofMillis(5)))
                .block(TIMEOUT);
        assertThat(alive).as("c's heartbeat expired").isEqualTo(2);

        store.leave(processor, "b").block(TIMEOUT);
        assertThat(store.heartbeat(processor, "a", LEASE).block(TIMEOUT)).isEqualTo(1);
    }

    @Test
    void pausesAndSeekRequestsAreKeptForTheOwnerWhichDoesTheSeek() {
        String processor = newProcessor();
        store.segments(processor, 2).block(TIMEOUT);
        store.claim(processor, 1, "a", LEASE).block(TIMEOUT);
        store.save(processor, 1, "a", 500).block(TIMEOUT);

        assertThat(store.pause(processor, 1, true).block(TIMEOUT)).isTrue();
        assertThat(store.requestSeek(processor, 1, 0).block(TIMEOUT)).isTrue();
        assertThat(store.pause(processor, 7, true).block(TIMEOUT))
                .as("no segment 7")
                .isFalse();
        assertThat(store.requestSeek(newProcessor(), 0, 0).block(TIMEOUT))
                .as("no processor")
                .isFalse();
        SegmentCheckpoint row = rows(processor).get(1);
        assertThat(row.paused()).isTrue();
        assertThat(row.requestedCheckpoint()).isZero();

        assertThat(store.seek(processor, 1, "b", 0).block(TIMEOUT))
                .as("not b's")
                .isFalse();
        assertThat(store.seek(processor, 1, "a", 0).block(TIMEOUT)).isTrue();

        row = rows(processor).get(1);
        assertThat(row.position()).isZero();
        assertThat(row.requestedCheckpoint()).as("done").isNull();
        assertThat(row.paused()).as("a seek does not resume").isTrue();
        store.pause(processor, 1, false).block(TIMEOUT);
        assertThat(rows(processor).get(1).paused()).isFalse();
    }

    @Test
    void aSeekToAnotherCheckpointThanTheOneRequestedLeavesTheRequest() {
        String processor = newProcessor();
        store.segments(processor, 1).block(TIMEOUT);
        claim(processor, "a", LEASE);
        store.requestSeek(processor, 0, 40).block(TIMEOUT);

        assertThat(store.seek(processor, 0, "a", 0).block(TIMEOUT)).isTrue();

        assertThat(rows(processor).get(0).requestedCheckpoint()).isEqualTo(40L);
    }
}
