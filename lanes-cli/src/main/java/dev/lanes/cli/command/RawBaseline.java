package dev.lanes.cli.command;

import dev.lanes.api.NamedAggregate;
import dev.lanes.kafka.KafkaOptions;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * The backends' own rates, measured in a run before Lanes' own ({@code lanes bench --raw-baseline}), with rows and
 * records of the shape Lanes writes, so that the two figures of one window can be set side by side.
 *
 * <ul>
 *   <li>PostgreSQL: one connection, multi-row {@code INSERT}s of {@value #ROWS_PER_TRANSACTION} rows, each its own
 *       transaction, into {@code lanes_raw_baseline} (made {@code LIKE lanes_event_streams INCLUDING ALL} in the run's
 *       schema: the events table's columns, keys and indexes), one deposit stream per row.
 *   <li>Kafka: one producer with the settings of Lanes' own on the topics a run creates (acks=all, idempotent, linger
 *       2 ms, one request in flight per connection), records of a command record's size, as fast as it takes them, to
 *       a topic of its own with the run's partitions.
 * </ul>
 *
 * <p>Each runs for the given duration on the calling thread and blocks; a failure names the backend and what failed.
 */
final class RawBaseline {
    static final int ROWS_PER_TRANSACTION = 500;
    static final String TABLE = "lanes_raw_baseline";

    private static final NamedAggregate TOPIC_OF = NamedAggregate.of("raw_baseline", "record");
    private static final String ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS jsonb), CAST(? AS jsonb), ?)";
    private static final String EVENTS = "[{\"sequence\":1,\"type\":\"dev.lanes.examples.bank.Bank$Deposited\","
            + "\"revision\":1,\"payload\":{\"amount\":42,\"reference\":\"dep-0000000000\"}}]";

    /**
     * One backend's raw rate.
     *
     * @param backend {@code PostgreSQL} or {@code Kafka}
     * @param what how it was measured, for the report
     * @param count rows or records written (acknowledged)
     * @param unit {@code rows} or {@code records}
     */
    record Rate(String backend, String what, long count, Duration elapsed, String unit) {
        Rate {
            if (count < 0 || elapsed.isNegative() || elapsed.isZero()) {
                throw new IllegalArgumentException(backend + ": " + count + " " + unit + " in " + elapsed);
            }
        }

        double perSecond() {
            return count * 1e9 / elapsed.toNanos();
        }
    }

    private RawBaseline() {}

    /** Multi-row INSERTs into {@link #TABLE} of the schema {@code url} names, for {@code duration}. */
    static Rate postgres(String url, Properties connection, Duration duration) throws SQLException {
        try (Connection db = DriverManager.getConnection(url, connection)) {
            try (Statement ddl = db.createStatement()) {
                ddl.execute("CREATE TABLE " + TABLE + " (LIKE lanes_event_streams INCLUDING ALL)");
            }
            db.setAutoCommit(false);
            String sql = "INSERT INTO " + TABLE + " (tenant_id, context_name, aggregate_name, aggregate_id, version,"
                    + " stream_id, request_id, command_id, created_at, headers, events, position) VALUES "
                    + String.join(", ", Collections.nCopies(ROWS_PER_TRANSACTION, ROW));
            long rows = 0;
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            try (PreparedStatement insert = db.prepareStatement(sql)) {
                do {
                    int parameter = 1;
                    OffsetDateTime now = OffsetDateTime.now();
                    for (int i = 0; i < ROWS_PER_TRANSACTION; i++, rows++) {
                        String id = String.format(Locale.ROOT, "%012d", rows);
                        insert.setString(parameter++, "default");
                        insert.setString(parameter++, "bank");
                        insert.setString(parameter++, "account");
                        insert.setString(parameter++, "acct-" + rows % 1_000);
                        insert.setInt(parameter++, (int) (rows / 1_000) + 1);
                        insert.setString(parameter++, "stream-" + id);
                        insert.setString(parameter++, "request-" + id);
                        insert.setString(parameter++, "command-" + id);
                        insert.setObject(parameter++, now);
                        insert.setString(parameter++, "{}");
                        insert.setString(parameter++, EVENTS);
                        // a position of its own: negative, below every position a transaction could take (the
                        // table keeps the events table's check on scaled positions, see V12__scaled_positions.sql)
                        insert.setLong(parameter++, -(rows + 1));
                    }
                    insert.executeUpdate();
                    db.commit();
                } while (System.nanoTime() < end);
            }
            return new Rate(
                    "PostgreSQL",
                    "multi-row INSERT, " + ROWS_PER_TRANSACTION + " rows per transaction, into " + TABLE
                            + " (the events table's shape)",
                    rows,
                    Duration.ofNanos(System.nanoTime() - start),
                    "rows");
        }
    }

    /**
     * An idempotent acks=all producer sending records of {@code recordBytes} to a topic of its own ({@code
     * <prefix>.raw_baseline.commands}, {@code partitions} partitions) for {@code duration}, then flushing; counts the
     * acknowledged records.
     */
    static Rate kafka(KafkaOptions options, int partitions, int recordBytes, Duration duration) {
        String topic = options.topics().commands(TOPIC_OF);
        createTopic(options, topic, partitions);
        Properties properties = new Properties();
        properties.putAll(options.clientProperties());
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, options.instanceId() + "-raw-baseline");
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        AtomicLong acked = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        AtomicReference<@Nullable Exception> firstError = new AtomicReference<>();
        long sent = 0;
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties)) {
            long end = start + duration.toNanos();
            do {
                byte[] key = ("default/bank.account/acct-" + sent % 1_000).getBytes(StandardCharsets.UTF_8);
                byte[] value = new byte[Math.max(0, recordBytes - key.length)];
                Arrays.fill(value, (byte) 'x');
                producer.send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
                    if (error == null) {
                        acked.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, error);
                    }
                });
                sent++;
            } while (System.nanoTime() < end);
            producer.flush();
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        Exception error = firstError.get();
        if (error != null) {
            throw new IllegalStateException(
                    "Raw Kafka baseline: " + failed.get() + " of " + sent + " records to " + topic + " at "
                            + options.bootstrapServers() + " were not acknowledged: " + error,
                    error);
        }
        return new Rate(
                "Kafka",
                "idempotent acks=all producer (linger 2 ms, 1 request in flight, as Lanes' producer on the topics a run"
                        + " creates), " + recordBytes + "-byte records (a deposit command's record), to " + topic,
                acked.get(),
                elapsed,
                "records");
    }

    private static void createTopic(KafkaOptions options, String topic, int partitions) {
        Duration timeout = options.startupTimeout();
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!led(admin, topic, timeout)) { // the first batch to a partition without a leader would fail
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Raw Kafka baseline: " + topic + " at " + options.bootstrapServers()
                            + " has partitions without a leader after " + timeout);
                }
                Thread.sleep(50);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "Raw Kafka baseline: could not create " + topic + " at " + options.bootstrapServers() + ": " + e,
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Raw Kafka baseline: interrupted while creating " + topic, e);
        }
    }

    private static boolean led(Admin admin, String topic, Duration timeout)
            throws ExecutionException, InterruptedException, TimeoutException {
        TopicDescription description;
        try {
            description = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return false; // created, but the broker that answered has not applied its metadata yet
            }
            throw e;
        }
        if (description == null) {
            return false;
        }
        for (TopicPartitionInfo partition : description.partitions()) {
            if (partition.leader() == null || partition.leader().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The report's notes: each raw rate, then Lanes' rate as a share of each. */
    static List<String> notes(List<Rate> rates, double lanesPerSecond, String unit) {
        List<String> notes = new java.util.ArrayList<>();
        StringBuilder ratios = new StringBuilder();
        for (Rate rate : rates) {
            notes.add(String.format(
                    Locale.ROOT,
                    "raw baseline, %s: %,.0f %s/s (%,d in %.1f s; %s)",
                    rate.backend(),
                    rate.perSecond(),
                    rate.unit(),
                    rate.count(),
                    rate.elapsed().toNanos() / 1e9,
                    rate.what()));
            ratios.append(ratios.isEmpty() ? "" : ", ")
                    .append(String.format(
                            Locale.ROOT,
                            "%.1f%% of %s's raw rate (ratio %.3f)",
                            100 * lanesPerSecond / rate.perSecond(),
                            rate.backend(),
                            lanesPerSecond / rate.perSecond()));
        }
        notes.add(String.format(
                Locale.ROOT, "Lanes beside the raw baseline: %,.0f %s/s = %s", lanesPerSecond, unit, ratios));
        return notes;
    }
}
