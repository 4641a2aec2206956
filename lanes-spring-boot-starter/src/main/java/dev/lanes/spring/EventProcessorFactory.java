package dev.lanes.spring;

import dev.lanes.command.CommandGateway;
import dev.lanes.processing.EventProcessor;

/**
 * A bean that makes an event processor from the instance's {@link CommandGateway}, as a saga needs: the gateway exists
 * only once {@link dev.lanes.Lanes} is built, so a saga cannot be an {@link EventProcessor} bean itself.
 *
 * <pre>{@code
 * @Bean
 * EventProcessorFactory transferSaga() {
 *     return TransferSaga::processor;
 * }
 * }</pre>
 *
 * <p>Called once, while the {@code Lanes} bean is built, on the thread that creates it.
 */
@FunctionalInterface
public interface EventProcessorFactory {

    /** The processor, made with the gateway of the instance it is registered in; never {@code null}. */
    EventProcessor create(CommandGateway gateway);
}
