package dev.lanes.spring;

import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * An in-process KRaft broker (Apache's test kit, configured as lanes-kafka's tests configure it) for one test class:
 * started in its {@code @BeforeAll}, closed in its {@code @AfterAll}, so the broker has stopped before the test JVM
 * exits instead of racing the JVM's other shutdown hooks.
 */
final class EmbeddedKafka implements AutoCloseable {
    private final KafkaClusterTestKit cluster;

    private EmbeddedKafka(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    static EmbeddedKafka start() {
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
            return new EmbeddedKafka(started);
        } catch (Exception e) {
            throw new IllegalStateException("Could not start the in-process Kafka broker", e);
        }
    }

    String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
