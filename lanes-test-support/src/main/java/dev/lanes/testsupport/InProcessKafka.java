package dev.lanes.testsupport;

import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.common.utils.Exit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process KRaft broker (Apache's test kit: one combined broker and controller, replication factor 1, short
 * consumer-group timeouts so rebalances take seconds) for a test class that wants one of its own: started in its
 * {@code @BeforeAll}, closed in its {@code @AfterAll}, so it has stopped before the test JVM exits. Tests that can share
 * a broker use {@link TestKafka}, one per JVM.
 *
 * <p>A broker thread that meets a fatal error (a log directory gone, say) would halt its process, here the test JVM,
 * which would then end with a failure status after its tests passed: once a broker started here, such a halt or exit is
 * logged at WARN and not obeyed, for the rest of the JVM. The test kit's own shutdown hook, which deletes the broker's
 * directories while a broker may still write, is left out: {@link #close()} deletes them once the broker is down.
 */
public final class InProcessKafka implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(InProcessKafka.class);

    private final KafkaClusterTestKit cluster;

    private InProcessKafka(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** Starts a broker and returns once it is ready; fails with {@link IllegalStateException} if it cannot. */
    public static InProcessKafka start() {
        Exit.setHaltProcedure((status, message) -> refusedToEnd("halt", status, message));
        Exit.setExitProcedure((status, message) -> refusedToEnd("exit", status, message));
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
            return new InProcessKafka(started);
        } catch (Exception e) {
            throw new IllegalStateException("InProcessKafka: could not start the in-process Kafka broker", e);
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

    /** The broker's address, for a client's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Stops the broker and deletes its directories. */
    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
