package dev.lanes.kafka;

import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.common.utils.Exit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One in-process KRaft broker per test JVM (started on first use, stopped by a shutdown hook): every test class (also lanes-cli's, through this module's test jar) uses
 * topics of its own, so they share it.
 */
public final class TestKafka {
    private static final Logger log = LoggerFactory.getLogger(TestKafka.class);
    private static @Nullable KafkaClusterTestKit cluster;

    private TestKafka() {}

    public static synchronized String bootstrapServers() {
        if (cluster == null) {
            cluster = start();
            Runtime.getRuntime().addShutdownHook(new Thread(TestKafka::stop, "test-kafka-stop"));
        }
        return cluster.bootstrapServers();
    }

    private static KafkaClusterTestKit start() {
        // A broker thread that meets a fatal error (a log directory gone, say) halts its process: here that is the
        // test JVM, which then ends with a failure code after its tests passed. Log it instead.
        Exit.setHaltProcedure((status, message) -> refusedToEnd("halt", status, message));
        Exit.setExitProcedure((status, message) -> refusedToEnd("exit", status, message));
        // The test kit registers a shutdown hook that deletes the cluster's directories. That hook would run
        // concurrently with the stop() hook below, under a broker still writing. close() deletes them itself,
        // once its brokers are down, so the kit's own hook is left out.
        Exit.setShutdownHookAdder((name, hook) -> {});
        try {
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1)
                    .build());
            Map.of(
                            "offsets.topic.replication.factor", "1",
                            "offsets.topic.num.partitions", "4",
                            "transaction.state.log.replication.factor", "1",
                            "transaction.state.log.min.isr", "1",
                            "group.initial.rebalance.delay.ms", "0",
                            "group.consumer.min.session.timeout.ms", "2000",
                            "group.consumer.session.timeout.ms", "6000",
                            "group.consumer.min.heartbeat.interval.ms", "200",
                            "group.consumer.heartbeat.interval.ms", "500")
                    .forEach(builder::setConfigProp);
            KafkaClusterTestKit started = builder.build();
            started.format();
            started.startup();
            started.waitForReadyBrokers();
            return started;
        } catch (Exception e) {
            throw new IllegalStateException("Could not start the in-process Kafka broker", e);
        } finally {
            Exit.resetShutdownHookAdder();
        }
    }

    private static void refusedToEnd(String how, int status, @Nullable String message) {
        log.warn(
                "The in-process Kafka broker asked to {} the test JVM with status {} ({}); it goes on",
                how,
                status,
                message);
    }

    private static synchronized void stop() {
        try {
            if (cluster != null) {
                cluster.close();
            }
        } catch (Exception e) {
            // the JVM is exiting
        }
    }
}
