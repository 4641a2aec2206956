package dev.lanes.test.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.tracking.TrackingOperations;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** docs/guides/projections-and-catch-up.md, compiled and run as written there. */
class ReadmeTrackingTest {

    @Test
    void aProjectionAddedLaterCatchesUpFromTheStoreAndFollowsNewCommands() {
        EventStore store = EventStores.inMemory();
        try (Lanes before = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(store)
                .build()
                .start()) {
            before.gateway()
                    .send(Bank.account("acc-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                    .block();
            before.gateway()
                    .send(Bank.account("acc-1"), new Deposit(100), WaitStage.PROCESSED)
                    .block();
        }
        // --- docs/guides/projections-and-catch-up.md snippet: from here
        CheckpointStore checkpoints = CheckpointStores.inMemory(); // or store.checkpointStore() on PostgreSQL
        BalanceProjection balances = new BalanceProjection(); // new: it has never seen an event
        try (Lanes lanes = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(store) // the store the service has been writing all along
                .trackingProcessor((events, parked) -> TrackingProcessor.builder(
                                balances.processor(), events, checkpoints)
                        .deadLetterQueue(parked) // the service's dead-letter queue: lanes.deadLetters() lists it
                        .build()) // reads from its checkpoint (0: from the start), then follows
                .build()
                .start()) {
            lanes.gateway()
                    .send(Bank.account("acc-1"), new Deposit(50), WaitStage.PROCESSED)
                    .block();
            // --- docs/guides/projections-and-catch-up.md snippet: to here (and the closing brace); assertions follow
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(balances.rows().get("acc-1"))
                            .isNotNull()
                            .satisfies(row -> assertThat(row.balance()).isEqualTo(150)));
        }
        assertThat(checkpoints.load(BalanceProjection.NAME).block()).isEqualTo(3L);
    }

    @Test
    void aProjectionSplitIntoSegmentsAsTheGuideShowsCatchesUpAndResetsPerSegment() {
        EventStore store = EventStores.inMemory();
        CheckpointStore checkpoints = CheckpointStores.inMemory();
        BalanceProjection balances = new BalanceProjection();
        try (Lanes lanes = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(store)
                .trackingProcessor((events, parked) ->
                        // --- docs/guides/projections-and-catch-up.md snippet (segments): from here
                        TrackingProcessor.builder(balances.processor(), events, checkpoints)
                                .settings(TrackingSettings.DEFAULT.withSegments(8)) // the same count on every instance
                                .onSegmentReset(balances::clear) // rows of the segment's accounts
                                .deadLetterQueue(parked)
                                .build())
                // --- docs/guides/projections-and-catch-up.md snippet (segments): to here
                .build()
                .start()) {
            for (int account = 0; account < 20; account++) {
                lanes.gateway()
                        .send(Bank.account("acc-" + account), new OpenAccount("ada"), WaitStage.PROCESSED)
                        .block();
                lanes.gateway()
                        .send(Bank.account("acc-" + account), new Deposit(10), WaitStage.PROCESSED)
                        .block();
            }
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(balances.totalBalance()).isEqualTo(200));
            assertThat(checkpoints.checkpoints(BalanceProjection.NAME).block()).hasSize(8);

            TrackingOperations operations = TrackingOperations.of(checkpoints, store, DeadLetterQueues.inMemory());
            assertThat(operations.reset(BalanceProjection.NAME, null).block()).hasSize(8);

            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(checkpoints
                                    .checkpoints(BalanceProjection.NAME)
                                    .block())
                            .allSatisfy(
                                    row -> assertThat(row.requestedCheckpoint()).isNull()));
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(balances.totalBalance()).isEqualTo(200));
            assertThat(balances.rows().values())
                    .allSatisfy(
                            row -> assertThat(row.gaps()).as("rebuilt in order").isZero());
        }
    }
}
