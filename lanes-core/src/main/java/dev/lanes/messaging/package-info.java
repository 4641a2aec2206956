/** The messages that flow through Lanes (commands, domain events, event streams) and the in-memory routes. */
@NullMarked
package dev.lanes.messaging;

import org.jspecify.annotations.NullMarked;
