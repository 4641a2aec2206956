package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.micrometer.LanesMicrometer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer meters for Lanes when lanes-micrometer is on the classpath and a {@link MeterRegistry} bean exists: every
 * dispatcher records to that registry (its meters bound when it prepares, tagged with its name and aggregate), and the
 * runtime's state, leases and shutdown figures are a {@link MeterBinder} bean, which Spring Boot's metrics
 * auto-configuration binds to its registries.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({LanesMicrometer.class, MeterRegistry.class})
@ConditionalOnBean(MeterRegistry.class)
class LanesMicrometerConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DispatcherMetrics lanesDispatcherMetrics(MeterRegistry registry) {
        return LanesMicrometer.dispatcherMetrics(registry);
    }

    @Bean
    @ConditionalOnMissingBean(name = "lanesRuntimeMetrics")
    MeterBinder lanesRuntimeMetrics(Lanes lanes) {
        return LanesMicrometer.runtimeMetrics(lanes.runtime());
    }
}
