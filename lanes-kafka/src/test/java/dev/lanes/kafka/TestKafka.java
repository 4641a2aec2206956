package dev.lanes.kafka;

import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * One in-process KRaft broker per test JVM (started on first use, stopped by a shutdown hook): every test class (also lanes-cli's, through this module's test jar) uses
 * topics of its own, so they share it.
 */
public final class TestKafka {
    private static KafkaClusterTestKit cluster;

    private TestKafka() {}

    public static synchronized String bootstrapServers() {
        if (cluster == null) {
            cluster = start();
            Runtime.getRuntime().addShutdownHook(new Thread(TestKafka::stop, "test-kafka-stop"));
        }
        return cluster.bootstrapServers();
    }

    private static KafkaClusterTestKit start() {
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
        }
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
