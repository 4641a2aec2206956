package dev.lanes.spring;

import dev.lanes.Lanes;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code lanes} health indicator ({@link LanesHealthIndicator}), when Spring Boot's health support is on the
 * classpath (spring-boot-health, brought by spring-boot-starter-actuator), a {@link Lanes} bean exists and {@code
 * management.health.lanes.enabled} is not {@code false}.
 */
@AutoConfiguration(after = LanesAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(Lanes.class)
@ConditionalOnEnabledHealthIndicator("lanes")
public final class LanesHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "lanesHealthIndicator")
    LanesHealthIndicator lanesHealthIndicator(
            Lanes lanes, LanesParkingLots parking, LanesWiring wiring, LanesProperties properties) {
        return new LanesHealthIndicator(
                lanes, parking, wiring, properties.processors().healthWaitsForCatchUp());
    }
}
