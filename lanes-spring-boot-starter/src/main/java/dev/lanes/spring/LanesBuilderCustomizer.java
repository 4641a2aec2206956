package dev.lanes.spring;

import dev.lanes.Lanes;

/**
 * A bean that adjusts the {@link Lanes.Builder} after the auto-configuration set it up from the beans and {@code
 * lanes.*} properties, just before it builds: lane settings, a snapshot store, a timer, anything the properties do not
 * cover. Customizers run in {@link org.springframework.core.annotation.Order} order, on the thread that creates the
 * {@code Lanes} bean.
 */
@FunctionalInterface
public interface LanesBuilderCustomizer {

    void customize(Lanes.Builder builder);
}
