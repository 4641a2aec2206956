package dev.lanes.kafka;

import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One connection per contract test, on topics of its own on the shared broker: opened once the test declared its
 * receivers (the connection, then every consumer, outside a runtime), closed gracefully after the test.
 */
final class ContractBuses {
    private static final Duration WAIT = Duration.ofSeconds(60);

    final KafkaBuses kafka;

    ContractBuses(String prefix) {
        String run = prefix + UUID.randomUUID().toString().substring(0, 8);
        this.kafka = KafkaBuses.create(KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(2, (short) 1)
                .withInstanceId("contract-" + run));
    }

    void open() {
        RuntimeContext context = RuntimeContext.standalone();
        kafka.prepare(context).block(WAIT);
        kafka.start();
        for (KafkaConsumerComponent consumer : consumers()) {
            consumer.prepareNow(context);
            consumer.start();
        }
    }

    void close() {
        for (KafkaConsumerComponent consumer : consumers()) {
            consumer.stopGracefully().block(WAIT);
        }
        kafka.stopGracefully().block(WAIT);
    }

    private List<KafkaConsumerComponent> consumers() {
        List<KafkaConsumerComponent> consumers = new ArrayList<>();
        KafkaConsumerComponent commands = kafka.commandConsumer();
        if (commands != null) {
            consumers.add(commands);
        }
        consumers.addAll(kafka.eventBus().consumers());
        return consumers;
    }
}
