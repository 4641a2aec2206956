package dev.lanes.spring.web;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.modeling.AggregateDefinition;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The registered aggregates and their command types by the names the endpoint's paths use. An aggregate is found by its
 * qualified name ({@code bank.account}) or, when no other context has an aggregate of that name, by its name alone
 * ({@code account}). Immutable after construction; safe to share between request threads.
 */
final class CommandCatalog {
    /** One aggregate: its type and its commands by name, in registration order. */
    record Aggregate(MaterializedNamedAggregate type, String pathName, Map<String, Class<?>> commands) {}

    private final List<Aggregate> aggregates;
    private final Map<String, Aggregate> byName;

    /** @throws IllegalStateException naming both classes when two command types of one aggregate get one name */
    CommandCatalog(List<? extends AggregateDefinition<?>> definitions, CommandNaming naming) {
        Map<String, Integer> nameCounts = new HashMap<>();
        definitions.forEach(
                definition -> nameCounts.merge(definition.namedAggregate().aggregateName(), 1, Integer::sum));
        List<Aggregate> made = new ArrayList<>();
        Map<String, Aggregate> index = new HashMap<>();
        for (AggregateDefinition<?> definition : definitions) {
            MaterializedNamedAggregate type = definition.namedAggregate();
            boolean unique = nameCounts.getOrDefault(type.aggregateName(), 0) == 1;
            Aggregate aggregate =
                    new Aggregate(type, unique ? type.aggregateName() : type.toString(), commands(definition, naming));
            made.add(aggregate);
            index.put(type.toString(), aggregate);
            if (unique) {
                index.put(type.aggregateName(), aggregate);
            }
        }
        this.aggregates = List.copyOf(made);
        this.byName = Map.copyOf(index);
    }

    private static Map<String, Class<?>> commands(AggregateDefinition<?> definition, CommandNaming naming) {
        Map<String, Class<?>> commands = new LinkedHashMap<>();
        for (Class<?> type : definition.commandTypes()) {
            String name = naming.name(type);
            if (name == null || name.isBlank() || name.contains("/")) {
                throw new IllegalStateException("Lanes web endpoint: the command name of " + type.getName() + " on "
                        + definition.namedAggregate() + " is '" + name + "': it must be non-blank, without '/'");
            }
            Class<?> other = commands.putIfAbsent(name, type);
            if (other != null) {
                throw new IllegalStateException("Lanes web endpoint: " + other.getName() + " and " + type.getName()
                        + " on " + definition.namedAggregate() + " are both named '" + name
                        + "'; declare a CommandNaming bean that tells them apart");
            }
        }
        return Collections.unmodifiableMap(commands);
    }

    List<Aggregate> aggregates() {
        return aggregates;
    }

    /** @throws EndpointException 404 naming the aggregates there are */
    Aggregate aggregate(String name) {
        Aggregate aggregate = byName.get(name);
        if (aggregate == null) {
            throw EndpointException.notFound(
                    "unknown-aggregate",
                    "Unknown aggregate",
                    "No aggregate '" + name + "' is registered; there are: " + new TreeSet<>(byName.keySet()));
        }
        return aggregate;
    }

    /** @throws EndpointException 404 naming the aggregate's commands */
    static Class<?> command(Aggregate aggregate, String name) {
        Class<?> type = aggregate.commands().get(name);
        if (type == null) {
            throw EndpointException.notFound(
                    "unknown-command",
                    "Unknown command",
                    "Aggregate " + aggregate.type() + " has no command '" + name + "'; its commands are: "
                            + aggregate.commands().keySet());
        }
        return type;
    }
}
