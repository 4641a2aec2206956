/**
 * Sequenced dead letters: a stream, reply or command whose last attempt failed is parked with its reason in a {@link
 * dev.lanes.processing.deadletter.DeadLetterQueue}, and its aggregate's later messages are parked behind it, so
 * nothing is handled out of order; {@link dev.lanes.processing.deadletter.DeadLetters} lists, retries and skips them.
 */
@NullMarked
package dev.lanes.processing.deadletter;

import org.jspecify.annotations.NullMarked;
