/**
 * Spring Boot auto-configuration of Lanes: declare {@link dev.lanes.modeling.AggregateDefinition} beans (and
 * {@link dev.lanes.processing.EventProcessor} or {@link dev.lanes.spring.EventProcessorFactory} beans) and the starter
 * wires one {@link dev.lanes.Lanes}, starts it with the application context and stops it gracefully inside Spring's
 * shutdown. Start at {@link dev.lanes.spring.LanesAutoConfiguration}; the settings are {@link
 * dev.lanes.spring.LanesProperties} ({@code lanes.*}).
 */
@NullMarked
package dev.lanes.spring;

import org.jspecify.annotations.NullMarked;
