package dev.lanes.spring;

import dev.lanes.opentelemetry.LanesTracing;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * OpenTelemetry tracing for Lanes when lanes-opentelemetry is on the classpath and an {@link OpenTelemetry} bean exists:
 * every send, command lane and processor's handling is a span of that {@code OpenTelemetry}'s tracer, linked through
 * the W3C trace context in the message headers ({@link LanesTracing}); processors fed from the store are traced too.
 * A {@link MessageTracing} bean of the application's own is used instead.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({LanesTracing.class, OpenTelemetry.class})
@ConditionalOnBean(OpenTelemetry.class)
class LanesOpenTelemetryConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MessageTracing lanesTracing(OpenTelemetry openTelemetry) {
        return LanesTracing.of(openTelemetry);
    }
}
