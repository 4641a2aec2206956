package dev.lanes.test.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A projection added to a running system reads the store from position 0, catches up while new streams keep being
 * appended, and ends equal to a replay of the store; per account in version order throughout.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class TrackingProcessorTest {
    private static final int ACCOUNTS = 500;
    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final TrackingSettings FAST = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(10))
            .withCheckpointInterval(Duration.ofMillis(20));

    private final EventStore store = EventStores.inMemory();
    private final CheckpointStore checkpoints = CheckpointStores.inMemory();
    private final int[] versions = new int[ACCOUNTS];

    /** Appends {@code count} deposits of 1..10 round-robin over the accounts, one stream each. */
    private void appendDeposits(int count) {
        for (int i = 0; i < count; i++) {
            int account = i % ACCOUNTS;
            AggregateId id = Bank.account("acc-" + account);
            int version = ++versions[account];
            store.append(DomainEventStream.of(
                            CommandMessage.of(id, new Deposit(i % 10 + 1, "")),
                            version,
                            List.of(new Deposited(i % 10 + 1, ""))))
                    .block();
        }
    }

    private CompletableFuture<Void> appendLive(int count) {
        return CompletableFuture.runAsync(() -> appendDeposits(count));
    }

    private TrackingProcessor tracking(Balances balances, String name) {
        return TrackingProcessor.builder(balances.processor(name), store, checkpoints)
                .settings(FAST)
                .onReset(balances::clear)
                .build();
    }

    /**
     * 100,000 streams of one event, then 20,000 more while it catches up. In the default suite: measured (surefire's
     * time, OpenJDK 17.0.15, the shared 2-core VM) at 6.4 s alone ({@code nice -n 15 mvn -B -q -pl lanes-test -am verify
     * -Pstress -Dgroups=stress -Dtest=TrackingProcessorTest -Dsurefire.failIfNoSpecifiedTests=false} while it was
     * tagged stress, load average 10.7) and 1.1 s inside {@code nice -n 15 mvn -B -pl
     * lanes-core,lanes-test,lanes-postgres -am verify} (load average 3.7 after the run).
     */
    @Test
    void aProjectionAddedAfter100kStreamsCatchesUpWhileTrafficGoesOnAndEqualsAReplay() {
        catchUpWhileTrafficGoesOn(100_000, 20_000);
    }

    private void catchUpWhileTrafficGoesOn(int history, int live) {
        appendDeposits(history);
        Balances balances = new Balances();
        TrackingProcessor tracking = tracking(balances, "Balances");
        LanesRuntime runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(30), Duration.ofMillis(50));
        runtime.start().block(WAIT);

        appendLive(live).join();
        await().atMost(WAIT).until(() -> balances.handled.get() >= history + live);
        ShutdownReport report = runtime.shutdown().block(WAIT);

        assertThat(report.graceful()).as("graceful stop: %s", report).isTrue();
        assertThat(balances.outOfOrder).as("streams out of version order").isEmpty();
        assertThat(balances.handled.get()).as("each stream handled once").isEqualTo(history + live);
        assertThat(balances.rows).isEqualTo(Balances.replay(store));
        assertThat(checkpoints.load("Balances").block())
                .as("checkpoint after the stop")
                .isEqualTo((long) history + live);
    }

    @Test
    void aResetUnderLoadRebuildsFromPositionZeroAndEndsEqualToAReplay() {
        appendDeposits(5_000);
        Balances balances = new Balances();
        TrackingProcessor tracking = tracking(balances, "Rebuilt");
        LanesRuntime runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(30), Duration.ofMillis(50));
        runtime.start().block(WAIT);
        CompletableFuture<Void> traffic = appendLive(10_000);
        await().atMost(WAIT).until(() -> balances.handled.get() >= 2_000);

        tracking.reset().block(WAIT);
        traffic.join();

        await().atMost(WAIT).until(() -> balances.handled.get() >= 15_000);
        runtime.shutdown().block(WAIT);
        assertThat(balances.outOfOrder).isEmpty();
        assertThat(balances.handled.get())
                .as("every stream once since the reset")
                .isEqualTo(15_000);
        assertThat(balances.rows).isEqualTo(Balances.replay(store));
    }

    @Test
    void aStoppedProcessorResumesAfterItsCheckpointWithoutHandlingAnythingTwice() {
        appendDeposits(3_000);
        Balances balances = new Balances();
        LanesRuntime first =
                new LanesRuntime(List.of(tracking(balances, "Resumed")), Duration.ofSeconds(30), Duration.ofMillis(50));
        first.start().block(WAIT);
        await().atMost(WAIT).until(() -> balances.handled.get() >= 3_000);
        first.shutdown().block(WAIT);

        appendDeposits(1_000);
        LanesRuntime second =
                new LanesRuntime(List.of(tracking(balances, "Resumed")), Duration.ofSeconds(30), Duration.ofMillis(50));
        second.start().block(WAIT);
        await().atMost(WAIT).until(() -> balances.handled.get() >= 4_000);
        second.shutdown().block(WAIT);

        assertThat(balances.handled.get()).isEqualTo(4_000);
        assertThat(balances.outOfOrder).isEmpty();
        assertThat(balances.rows).isEqualTo(Balances.replay(store));
    }

    @Test
    void aResetBeforeStartIsRefusedNamingTheProcessorAndItsState() {
        TrackingProcessor tracking = tracking(new Balances(), "Early");

        assertThatThrownBy(() -> tracking.reset().block())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Tracking-Early")
                .hasMessageContaining("NEW");
    }
}
