package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code lanesprocessors} Actuator endpoint ({@link LanesProcessorsEndpoint}), when the actuator is on the
 * classpath, the auto-configured {@link Lanes} exists and the endpoint is available ({@code
 * management.endpoints.web.exposure.include=lanesprocessors} to reach it over HTTP).
 */
@AutoConfiguration(after = LanesAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean({Lanes.class, LanesWiring.class})
@ConditionalOnAvailableEndpoint(LanesProcessorsEndpoint.class)
public final class LanesProcessorsEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LanesProcessorsEndpoint lanesProcessorsEndpoint(
            Lanes lanes, LanesWiring wiring, ObjectProvider<DeadLetterQueue> deadLetters) {
        return new LanesProcessorsEndpoint(
                wiring, lanes.eventStore(), deadLetters.getIfAvailable(DeadLetterQueues::inMemory));
    }
}
