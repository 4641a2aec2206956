package dev.lanes.examples.inventory;

/** What happened to an item: the facts stored in PostgreSQL, one stream per command. */
public sealed interface ItemEvent {

    record Received(long quantity) implements ItemEvent {}

    record Reserved(long quantity) implements ItemEvent {}

    record Released(long quantity) implements ItemEvent {}
}
