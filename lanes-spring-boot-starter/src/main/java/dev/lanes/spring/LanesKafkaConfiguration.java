package dev.lanes.spring;

import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.kafka.JacksonPayloadSerializer;
import dev.lanes.kafka.KafkaBuses;
import dev.lanes.kafka.KafkaOptions;
import dev.lanes.kafka.TopicNaming;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Kafka buses for Lanes when lanes-kafka is on the classpath and {@code lanes.kafka.bootstrap-servers} is set: one
 * {@link KafkaBuses} (a bean, so the application can declare its own with another serializer or parking lot), wired
 * into the builder by {@link KafkaBuses#applyTo} before any other customizer: its command bus, its event bus, the
 * command dispatcher's {@code PAUSE} settings, and its connection and consumers as runtime components that start before
 * the dispatchers and stop after them. The runtime owns their lifecycle; the bean has no destroy method.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(KafkaBuses.class)
@ConditionalOnProperty(prefix = "lanes.kafka", name = "bootstrap-servers")
class LanesKafkaConfiguration {

    /**
     * Events through the application's one {@link PayloadCodec} bean (the PostgreSQL store's serializer, when the
     * store is configured), else through a {@link JacksonPayloadSerializer} with its {@link EventTypes} bean (or none):
     * the bus sends events under the names and revisions the store keeps, and reads them through the same upcasters.
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    KafkaBuses lanesKafkaBuses(
            LanesProperties properties, ObjectProvider<PayloadCodec> codecs, ObjectProvider<EventTypes> types) {
        PayloadCodec codec = codecs.getIfUnique(() -> new JacksonPayloadSerializer(
                JacksonPayloadSerializer.defaultObjectMapper(), types.getIfAvailable(() -> EventTypes.NONE)));
        return KafkaBuses.create(options(properties.kafka()), codec);
    }

    /** First of the customizers, so that one the application declares can still adjust what it set. */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    LanesBuilderCustomizer lanesKafkaCustomizer(KafkaBuses kafka) {
        return kafka::applyTo;
    }

    static KafkaOptions options(LanesProperties.Kafka settings) {
        String servers =
                Objects.requireNonNull(settings.bootstrapServers(), "lanes.kafka.bootstrap-servers (the condition)");
        KafkaOptions options = KafkaOptions.of(servers)
                .withTopics(TopicNaming.perContext(settings.topicPrefix()))
                .withStartupTimeout(settings.startupTimeout());
        String instanceId = settings.instanceId();
        if (instanceId != null) {
            options = options.withInstanceId(instanceId);
        }
        Integer partitions = settings.topicPartitions();
        if (partitions != null) {
            options = options.withTopicCreation(partitions, settings.topicReplicationFactor());
        }
        for (var property : settings.clientProperties().entrySet()) {
            options = options.withClientProperty(property.getKey(), property.getValue());
        }
        return options;
    }
}
