package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Where the time of one {@code PROCESSED} command through Kafka goes: 32 clients, each with its own account and one
 * command in flight, against the in-process broker and the in-memory store. Kafka interceptors (set through {@link
 * KafkaOptions#withClientProperty}) stamp each command's record when the producer takes it and when a poll returns it,
 * and its events' record when the producer takes it; the client stamps the send and the answer. Printed per stage as
 * p50/p99 (docs/benchmarks.md, "Where a PROCESSED command's time went"). A benchmark, not a timed test:
 *
 * <pre>
 * mvn -pl lanes-kafka -am verify -Pstress -Dtest=KafkaLatencyProbeTest -Dsurefire.failIfNoSpecifiedTests=false \
 *     [-Dprobe.props=linger.ms=5,max.in.flight.requests.per.connection=1]
 * </pre>
 */
@Tag("stress")
class KafkaLatencyProbeTest {
    private static final int CLIENTS = 32;
    private static final Duration WARMUP = Duration.ofSeconds(3);
    private static final Duration MEASURED = Duration.ofSeconds(Long.getLong("probe.seconds", 10));
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void whereAProcessedCommandsTimeGoes() throws Exception {
        String run = "probe" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(12, (short) 1)
                .withInstanceId("probe-" + run)
                .withClientProperty("interceptor.classes", Stamps.class.getName());
        for (String setting : System.getProperty("probe.props", "").split(",")) {
            if (!setting.isBlank()) {
                String[] pair = setting.split("=", 2);
                options = options.withClientProperty(pair[0].strip(), pair[1].strip());
            }
        }
        KafkaBuses kafka = KafkaBuses.create(options);
        Lanes lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .eventStore(EventStores.inMemory())
                .shutdownTimeout(TIMEOUT)
                .build()
                .start(TIMEOUT);
        List<long[]> samples = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                lanes.gateway()
                        .send(account(run, i), new Ledger.Open("c" + i), WaitStage.PROCESSED)
                        .block(TIMEOUT);
            }
            ConcurrentLinkedQueue<long[]> measured = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            long start = System.nanoTime();
            long measureFrom = start + WARMUP.toNanos();
            long end = measureFrom + MEASURED.toNanos();
            CountDownLatch done = new CountDownLatch(CLIENTS);
            for (int i = 0; i < CLIENTS; i++) {
                AggregateId account = account(run, i);
                String key = RecordCodec.key(account);
                Thread client = new Thread(
                        () -> {
                            try {
                                while (System.nanoTime() < end) {
                                    long sent = System.nanoTime();
                                    lanes.gateway()
                                            .send(account, new Ledger.Credit(1), WaitStage.PROCESSED)
                                            .block(TIMEOUT);
                                    long answered = System.nanoTime();
                                    long[] stamps = Stamps.take(key);
                                    if (sent >= measureFrom && stamps != null) {
                                        measured.add(new long[] {
                                            stamps[0] - sent, // the gateway until the producer takes the command
                                            stamps[1] - stamps[0], // producer -> broker -> a poll returns it
                                            stamps[2] - stamps[1], // poll -> lane -> store -> events to the producer
                                            answered - stamps[2], // the events' acknowledgement -> the answer
                                            answered - sent
                                        });
                                    }
                                }
                            } catch (Throwable error) {
                                failures.add(error);
                            } finally {
                                done.countDown();
                            }
                        },
                        "probe-client-" + i);
                client.start();
            }
            done.await();
            assertThat(failures).isEmpty();
            samples.addAll(measured);
        } finally {
            lanes.stop();
        }
        assertThat(samples).isNotEmpty();
        String[] names = {
            "gateway -> producer", "command: producer -> poll", "poll -> events sent", "events sent -> answer", "total"
        };
        System.out.printf(
                Locale.ROOT,
                "probe (%s): %d commands in %d s = %.0f/s, %d clients%n",
                System.getProperty("probe.props", "defaults"),
                samples.size(),
                MEASURED.toSeconds(),
                samples.size() / (double) MEASURED.toSeconds(),
                CLIENTS);
        for (int stage = 0; stage < names.length; stage++) {
            long[] values = new long[samples.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = samples.get(i)[stage];
            }
            Arrays.sort(values);
            System.out.printf(
                    Locale.ROOT,
                    "  %-28s p50 %7.2f ms  p99 %7.2f ms%n",
                    names[stage],
                    values[values.length / 2] / 1e6,
                    values[(int) (values.length * 0.99)] / 1e6);
        }
    }

    private static AggregateId account(String run, int client) {
        return Ledger.account(run + "-" + client);
    }

    /**
     * Stamps the records of one key (one account: one command in flight): [0] its command taken by the producer, [1]
     * returned by a poll, [2] its events taken by the producer. Kafka makes one per client; they share the map.
     */
    public static final class Stamps
            implements ProducerInterceptor<String, byte[]>, ConsumerInterceptor<String, byte[]> {
        private static final Map<String, long[]> BY_KEY = new ConcurrentHashMap<>();

        static long[] take(String key) {
            return BY_KEY.remove(key);
        }

        @Override
        public ProducerRecord<String, byte[]> onSend(ProducerRecord<String, byte[]> record) {
            long now = System.nanoTime();
            String key = record.key();
            if (key != null) {
                if (record.topic().endsWith(".commands")) {
                    BY_KEY.put(key, new long[] {now, 0, 0});
                } else if (record.topic().endsWith(".events")) {
                    long[] stamps = BY_KEY.get(key);
                    if (stamps != null) {
                        stamps[2] = now;
                    }
                }
            }
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {}

        @Override
        public ConsumerRecords<String, byte[]> onConsume(ConsumerRecords<String, byte[]> records) {
            long now = System.nanoTime();
            for (ConsumerRecord<String, byte[]> record : records) {
                if (record.topic().endsWith(".commands") && record.key() != null) {
                    long[] stamps = BY_KEY.get(record.key());
                    if (stamps != null) {
                        stamps[1] = now;
                    }
                }
            }
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

        @Override
        public void close() {}

        @Override
        public void configure(Map<String, ?> configs) {}
    }
}
