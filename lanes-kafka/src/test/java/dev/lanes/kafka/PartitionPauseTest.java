package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Backpressure is per partition: while one aggregate's handler is stuck, only the partition of that aggregate is
 * paused once its records in the lanes reach the bound; the other partitions' records keep flowing, and the paused one
 * resumes when the handler moves on.
 */
class PartitionPauseTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int PARTITIONS = 4;
    private static final int MAX_UNSETTLED = 8;

    @Test
    void onlyThePartitionOfAStuckAggregateIsPausedAndItResumesWhenTheHandlerMovesOn() {
        String run = "pause" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(PARTITIONS, (short) 1)
                .withPartitionBounds(MAX_UNSETTLED, 2 * MAX_UNSETTLED)
                .withInstanceId("pause-" + run);
        KafkaBuses kafka = KafkaBuses.create(options);
        AggregateId stuck = Ledger.account("stuck");
        Sinks.Empty<Void> unblock = Sinks.empty();
        ReadModel applied = new ReadModel();
        Lanes lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .processor(slow(applied, stuck, unblock.asMono()))
                .build()
                .start(TIMEOUT);
        try {
            TopicPartition stuckPartition = partitionOf(options, stuck);
            KafkaConsumerComponent consumer = kafka.eventBus().consumer("Slow");
            send(lanes, stuck, 3 * MAX_UNSETTLED);

            await().atMost(TIMEOUT).until(() -> consumer.pausedPartitions().contains(stuckPartition));
            List<AggregateId> others = otherPartitions(options, stuckPartition, 3);
            others.forEach(other -> send(lanes, other, 5));

            await().atMost(TIMEOUT)
                    .until(() -> others.stream()
                            .allMatch(other -> applied.rows.containsKey(other)
                                    && applied.rows.get(other).version() == 6));
            assertThat(consumer.pausedPartitions()).containsExactly(stuckPartition);
            assertThat(applied.rows).doesNotContainKey(stuck);

            unblock.tryEmitEmpty();
            await().atMost(TIMEOUT)
                    .until(() -> applied.rows.containsKey(stuck)
                            && applied.rows.get(stuck).version() == 3 * MAX_UNSETTLED + 1);
            await().atMost(TIMEOUT).until(() -> consumer.pausedPartitions().isEmpty());
            assertThat(applied.violations).isEmpty();
        } finally {
            unblock.tryEmitEmpty();
            lanes.stop();
        }
    }

    /** Opens the account and credits it {@code credits} times, waiting for each to be processed. */
    private static void send(Lanes lanes, AggregateId account, int credits) {
        lanes.gateway()
                .send(account, new Ledger.Open("owner"), WaitStage.PROCESSED)
                .block(TIMEOUT);
        Flux.range(1, credits)
                .concatMap(i -> lanes.gateway().send(account, new Ledger.Credit(i), WaitStage.PROCESSED))
                .blockLast(TIMEOUT);
    }

    /** A handler whose lane of {@code stuck} waits for {@code unblock}; every other aggregate is applied at once. */
    private static EventProcessor slow(ReadModel applied, AggregateId stuck, Mono<Void> unblock) {
        return EventProcessor.builder("Slow", ProcessorKind.HANDLER)
                .on(Ledger.ACCOUNT, Object.class, (event, context) -> {
                    if (context.event().sequence() != 1) {
                        return Mono.empty();
                    }
                    Mono<Void> apply = Mono.fromRunnable(() -> applied.apply(context.stream()));
                    return context.stream().aggregateId().equals(stuck) ? unblock.then(apply) : apply;
                })
                .build();
    }

    /** The event partition of {@code id}, as the producer's default partitioner picks it from the record key. */
    private static TopicPartition partitionOf(KafkaOptions options, AggregateId id) {
        byte[] key = RecordCodec.key(id).getBytes(StandardCharsets.UTF_8);
        return new TopicPartition(
                options.topics().events(id.namedAggregate()), Utils.toPositive(Utils.murmur2(key)) % PARTITIONS);
    }

    private static List<AggregateId> otherPartitions(KafkaOptions options, TopicPartition excluded, int count) {
        List<AggregateId> found = new ArrayList<>();
        for (int i = 0; found.size() < count; i++) {
            AggregateId candidate = Ledger.account("free-" + i);
            if (!Set.of(excluded).contains(partitionOf(options, candidate))) {
                found.add(candidate);
            }
        }
        return found;
    }
}
