package dev.lanes.cli.bank;

import dev.lanes.api.NamedAggregate;
import dev.lanes.kafka.KafkaOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * Waits until every consumer group of a run has committed up to the end of its topic: the commands group on the
 * command topic, each processor's group on the event topic. Only then are all the instances' consumers caught up, so a
 * stop of every instance leaves nothing unread that the audit expects in the read models (a record published by one
 * instance into a partition whose consumer on another instance already left would otherwise wait for the next
 * owner). Polled every 200 ms; drained means two polls in a row found no lag. A poll whose admin call fails (a broker
 * still down when the stop begins) is retried with a bounded backoff until the deadline, never given up at once.
 */
final class TopicsDrained {
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    /** The longest pause between two looks that failed. */
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** The most one admin call may wait for the broker; less when the deadline is nearer. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    private TopicsDrained() {}

    /** One look at every group: the records its topic holds beyond the group's committed offsets, summed. */
    @FunctionalInterface
    interface Lag {
        /**
         * Throws ({@link ExecutionException}, {@link TimeoutException} or a runtime exception) when an admin call
         * failed or was not answered in time.
         *
         * @param callTimeout the most each admin call may wait for the broker
         */
        long total(Duration callTimeout) throws ExecutionException, InterruptedException, TimeoutException;
    }

    /** The wait's clock: {@link #SYSTEM}, or a test's virtual time. */
    interface Ticker {
        Ticker SYSTEM = new Ticker() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void sleep(Duration duration) throws InterruptedException {
                TimeUnit.NANOSECONDS.sleep(duration.toNanos()); // a poll interval, not a wait for a result
            }
        };

        long nanoTime();

        void sleep(Duration duration) throws InterruptedException;
    }

    /**
     * How the wait ended.
     *
     * @param drained whether two looks in a row found no lag
     * @param failedCalls looks that failed (an admin call refused or not answered in time)
     * @param lastFailure what the last failed look said, or null when none failed
     */
    record Outcome(
            boolean drained, int failedCalls, @Nullable String lastFailure) {}

    /**
     * Waits (at most {@code max}) until every group of the run has read its topic to the end. An admin call that fails
     * (a broker still down when the stop begins, a leader moving) is retried until the deadline; the outcome says
     * whether the groups drained and what the last failure was. Runs on the caller's thread; blocks it up to {@code
     * max}.
     */
    static Outcome await(KafkaOptions options, NamedAggregate type, List<String> processors, Duration max) {
        Map<String, String> topicOfGroup = new HashMap<>();
        topicOfGroup.put(options.topics().group("commands"), options.topics().commands(type));
        processors.forEach(processor -> topicOfGroup.put(
                options.topics().group(processor), options.topics().events(type)));
        Admin admin;
        try {
            admin = Admin.create(properties(options));
        } catch (RuntimeException e) {
            return new Outcome(false, 1, describe(e));
        }
        try (admin) {
            return await(callTimeout -> lag(admin, topicOfGroup, callTimeout), max, Ticker.SYSTEM);
        }
    }

    /**
     * Looks at the lag every 200 ms until two looks in a row find none, or {@code max} passed. A look that fails is
     * retried after a backoff that doubles from 200 ms to at most 2 s, and starts over once a look is answered; no
     * call and no pause reaches past the deadline.
     */
    static Outcome await(Lag lag, Duration max, Ticker ticker) {
        long deadline = ticker.nanoTime() + max.toNanos();
        int quietPolls = 0;
        int failures = 0;
        @Nullable String lastFailure = null;
        long backoff = POLL_NANOS;
        try {
            for (long left = max.toNanos(); left > 0; left = deadline - ticker.nanoTime()) {
                long pause = POLL_NANOS;
                try {
                    quietPolls = lag.total(Duration.ofNanos(Math.min(CALL_TIMEOUT.toNanos(), left))) == 0
                            ? quietPolls + 1
                            : 0;
                    backoff = POLL_NANOS;
                } catch (ExecutionException | TimeoutException | RuntimeException e) {
                    failures++;
                    lastFailure = describe(e);
                    quietPolls = 0;
                    pause = backoff;
                    backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
                }
                if (quietPolls >= 2) {
                    return new Outcome(true, failures, lastFailure);
                }
                long untilDeadline = deadline - ticker.nanoTime();
                if (untilDeadline > 0) {
                    ticker.sleep(Duration.ofNanos(Math.min(pause, untilDeadline)));
                }
            }
            return new Outcome(false, failures, lastFailure);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Outcome(false, failures, "interrupted");
        }
    }

    /** The failure's own words: the cause of an {@link ExecutionException}, its class and its message. */
    private static String describe(Exception e) {
        Throwable shown = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return shown.getClass().getSimpleName() + (shown.getMessage() == null ? "" : ": " + shown.getMessage());
    }

    private static long lag(Admin admin, Map<String, String> topicOfGroup, Duration callTimeout)
            throws ExecutionException, InterruptedException, TimeoutException {
        long lag = 0;
        for (Map.Entry<String, String> entry : topicOfGroup.entrySet()) {
            Map<TopicPartition, Long> ends = ends(admin, entry.getValue(), callTimeout);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(entry.getKey())
                    .partitionsToOffsetAndMetadata()
                    .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
            for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                OffsetAndMetadata at = committed.get(end.getKey());
                lag += end.getValue() - (at == null ? 0 : at.offset());
            }
        }
        return lag;
    }

    private static Map<TopicPartition, Long> ends(Admin admin, String topic, Duration callTimeout)
            throws ExecutionException, InterruptedException, TimeoutException {
        TopicDescription description = Objects.requireNonNull(
                admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
                        .get(topic),
                () -> "no description of topic " + topic);
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        description
                .partitions()
                .forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(request)
                .all()
                .get(callTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    private static Properties properties(KafkaOptions options) {
        Properties properties = new Properties();
        properties.putAll(options.clientProperties());
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, options.instanceId() + "-drain");
        return properties;
    }
}
