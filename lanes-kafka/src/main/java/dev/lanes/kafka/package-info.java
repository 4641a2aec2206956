/**
 * Command and event buses on Apache Kafka: record key = aggregate id (with tenant), so one aggregate's messages stay
 * in one partition; one consumer group per command dispatcher and per event processor; offsets committed only past
 * settled work. See {@code docs/guides/kafka-and-scaling-out.md}.
 */
@NullMarked
package dev.lanes.kafka;

import org.jspecify.annotations.NullMarked;
