/**
 * Sagas: event processors that turn events into commands ({@link dev.lanes.processing.saga.SagaContext}), sent
 * through a bounded outbox after the handler ended, and that receive the outcomes of those commands as {@link
 * dev.lanes.processing.saga.SagaReply replies} in the lane of the aggregate that caused them. Built with {@code
 * EventProcessor.saga(...)}.
 */
@NullMarked
package dev.lanes.processing.saga;

import org.jspecify.annotations.NullMarked;
