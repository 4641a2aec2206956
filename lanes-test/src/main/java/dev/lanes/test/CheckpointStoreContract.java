package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.eventsourcing.CheckpointStore;
import java.time.Duration;
import java.util.List;
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
}
