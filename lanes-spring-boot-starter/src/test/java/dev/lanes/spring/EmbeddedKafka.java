package dev.lanes.spring;

import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * One in-process KRaft broker per test JVM, as lanes-kafka's tests start it (Apache's test kit), started on first use
 * and stopped by a shutdown hook; tests use topics of their own prefix, so they share it.
 */
final class EmbeddedKafka {
    private static KafkaClusterTestKit cluster;

    private EmbeddedKafka() {}

    static synchronized String bootstrapServers() {
        if (cluster == null) {
            cluster = start();
            Runtime.getRuntime().addShutdownHook(new Thread(EmbeddedKafka::stop, "embedded-kafka-stop"));
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
                            "group.initial.rebalance.delay.ms", "0")
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
