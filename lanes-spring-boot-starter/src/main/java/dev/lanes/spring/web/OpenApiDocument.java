package dev.lanes.spring.web;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.temporal.Temporal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The OpenAPI 3.1 document of the registered commands: one {@code POST} operation per aggregate and command, whose
 * request body schema is made from the command's record components (their Java types, and the Bean Validation
 * constraints {@code NotNull}, {@code NotBlank}, {@code NotEmpty}, {@code Positive}, {@code PositiveOrZero}, {@code
 * Min}, {@code Max} and {@code Size}, read by name so no validation API is needed). A class that is not a record is
 * described as an object. Built once, when the endpoint is created.
 */
final class OpenApiDocument {
    private static final String JSON = "application/json";
    private static final String PROBLEM_JSON = "application/problem+json";

    private OpenApiDocument() {}

    static Map<String, Object> of(CommandCatalog catalog, String basePath, @Nullable String tenantHeader) {
        Map<String, Object> schemas = new LinkedHashMap<>();
        schemas.put("CommandResult", commandResult());
        schemas.put("Problem", problem());
        Map<String, Object> paths = new LinkedHashMap<>();
        for (CommandCatalog.Aggregate aggregate : catalog.aggregates()) {
            aggregate.commands().forEach((name, type) -> {
                String schema = aggregate.pathName() + "." + name;
                schemas.put(schema, schema(type, new HashSet<>()));
                paths.put(
                        basePath + "/" + aggregate.pathName() + "/{id}/" + name,
                        Map.of("post", operation(aggregate, name, type, schema, tenantHeader)));
            });
        }
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("openapi", "3.1.0");
        document.put(
                "info",
                Map.of(
                        "title",
                        "Lanes commands",
                        "version",
                        "1",
                        "description",
                        "Commands of the registered aggregates. Send a request id in Idempotency-Key and send the same"
                                + " command again with it after any doubtful answer (a timeout, a 503): it is applied at"
                                + " most once."));
        document.put("paths", paths);
        document.put("components", Map.of("schemas", schemas));
        return Map.copyOf(document);
    }

    private static Map<String, Object> operation(
            CommandCatalog.Aggregate aggregate,
            String name,
            Class<?> type,
            String schema,
            @Nullable String tenantHeader) {
        Map<String, Object> operation = new LinkedHashMap<>();
        operation.put("operationId", aggregate.pathName() + "." + name);
        operation.put("summary", name + " on " + aggregate.type() + " (" + type.getName() + ")");
        operation.put("tags", List.of(aggregate.type().toString()));
        List<Map<String, Object>> parameters = new ArrayList<>();
        parameters.add(parameter("id", "path", true, Map.of("type", "string"), "The aggregate's id"));
        parameters.add(parameter(
                LanesWeb.IDEMPOTENCY_KEY,
                "header",
                false,
                Map.of("type", "string"),
                "The request id: the command is stored at most once per aggregate and request id;"
                        + " a fresh one is made when it is missing (and said so in the answer)"));
        parameters.add(parameter(
                LanesWeb.WAIT,
                "query",
                false,
                Map.of("type", "string", "enum", List.of("SENT", "PROCESSED", "PROJECTED")),
                "The stage to wait for"));
        if (tenantHeader != null) {
            parameters.add(parameter(
                    tenantHeader, "header", true, Map.of("type", "string"), "The tenant of the command's aggregate"));
        }
        operation.put("parameters", List.copyOf(parameters));
        operation.put("requestBody", Map.of("required", true, "content", Map.of(JSON, Map.of("schema", ref(schema)))));
        Map<String, Object> responses = new LinkedHashMap<>();
        responses.put("200", response("The command reached the stage", JSON, "CommandResult"));
        responses.put("400", response("Unreadable or invalid command, or an unknown wait stage", PROBLEM_JSON, null));
        responses.put("404", response("Unknown aggregate or command", PROBLEM_JSON, null));
        responses.put("409", response("Version conflict", PROBLEM_JSON, null));
        responses.put("413", response("The body is larger than lanes.web.max-body-size", PROBLEM_JSON, null));
        responses.put(
                "422",
                response(
                        "A rule refused it (a resend of a refused request id gets the same answer), or the request id"
                                + " was used for another command",
                        PROBLEM_JSON,
                        null));
        responses.put(
                "503",
                response(
                        "Overloaded, stopping or timed out (see storage); retry with the same request id",
                        PROBLEM_JSON,
                        null));
        operation.put("responses", responses);
        return operation;
    }

    private static Map<String, Object> parameter(
            String name, String in, boolean required, Map<String, Object> schema, String description) {
        return Map.of("name", name, "in", in, "required", required, "schema", schema, "description", description);
    }

    private static Map<String, Object> response(String description, String mediaType, @Nullable String schema) {
        return Map.of(
                "description",
                description,
                "content",
                Map.of(mediaType, Map.of("schema", ref(schema == null ? "Problem" : schema))));
    }

    private static Map<String, Object> ref(String schema) {
        return Map.of("$ref", "#/components/schemas/" + schema);
    }

    private static Map<String, Object> commandResult() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("requestId", Map.of("type", "string"));
        properties.put("requestIdGenerated", Map.of("type", "boolean"));
        properties.put("commandId", Map.of("type", "string"));
        properties.put("aggregate", Map.of("type", "string"));
        properties.put("aggregateId", Map.of("type", "string"));
        properties.put("command", Map.of("type", "string"));
        properties.put("stage", Map.of("type", "string", "enum", List.of("SENT", "PROCESSED", "PROJECTED")));
        properties.put("version", Map.of("type", "integer"));
        properties.put(
                "events",
                Map.of(
                        "type",
                        "array",
                        "items",
                        Map.of(
                                "type",
                                "object",
                                "properties",
                                Map.of("type", Map.of("type", "string"), "event", Map.of("type", "object")))));
        return Map.of("type", "object", "properties", properties);
    }

    private static Map<String, Object> problem() {
        Map<String, Object> properties = new LinkedHashMap<>();
        for (String name : List.of("type", "title", "detail", "instance", "requestId", "storage", "reason")) {
            properties.put(name, Map.of("type", "string"));
        }
        properties.put("status", Map.of("type", "integer"));
        properties.put("requestIdGenerated", Map.of("type", "boolean"));
        return Map.of("type", "object", "description", "RFC 9457 problem details", "properties", properties);
    }

    /** The schema of a command class; {@code seen} stops a record that contains itself. */
    private static Map<String, Object> schema(Class<?> type, Set<Class<?>> seen) {
        if (!type.isRecord() || !seen.add(type)) {
            return Map.of("type", "object");
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        List<String> required = new ArrayList<>();
        for (RecordComponent component : type.getRecordComponents()) {
            Map<String, Object> property = new LinkedHashMap<>(type(component.getGenericType(), seen));
            boolean needed = component.getType().isPrimitive();
            for (Annotation constraint : constraints(component)) {
                needed |= constrain(property, constraint);
            }
            properties.put(component.getName(), property);
            if (needed) {
                required.add(component.getName());
            }
        }
        seen.remove(type);
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        if (!required.isEmpty()) {
            schema.put("required", required);
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    /** The annotations on the component and on its accessor (where Bean Validation may find them). */
    private static List<Annotation> constraints(RecordComponent component) {
        List<Annotation> all = new ArrayList<>(Arrays.asList(component.getAnnotations()));
        all.addAll(Arrays.asList(component.getAccessor().getAnnotations()));
        try {
            all.addAll(Arrays.asList(component
                    .getDeclaringRecord()
                    .getDeclaredField(component.getName())
                    .getAnnotations()));
        } catch (NoSuchFieldException impossible) {
            // every record component has its field
        }
        return all;
    }

    /** Applies one Bean Validation constraint to the property's schema; true when it makes the property required. */
    private static boolean constrain(Map<String, Object> property, Annotation constraint) {
        switch (constraint.annotationType().getSimpleName()) {
            case "NotNull" -> {
                return true;
            }
            case "NotBlank", "NotEmpty" -> {
                property.put("array".equals(property.get("type")) ? "minItems" : "minLength", 1);
                return true;
            }
            case "Positive" -> property.put("exclusiveMinimum", 0);
            case "PositiveOrZero" -> property.put("minimum", 0);
            case "Min" -> property.put("minimum", value(constraint, "value"));
            case "Max" -> property.put("maximum", value(constraint, "value"));
            case "Size" -> {
                boolean array = "array".equals(property.get("type"));
                Object min = value(constraint, "min");
                Object max = value(constraint, "max");
                if (min instanceof Integer least && least > 0) {
                    property.put(array ? "minItems" : "minLength", least);
                }
                if (max instanceof Integer most && most < Integer.MAX_VALUE) {
                    property.put(array ? "maxItems" : "maxLength", most);
                }
            }
            default -> {
                // not a constraint the document describes
            }
        }
        return false;
    }

    private static @Nullable Object value(Annotation annotation, String attribute) {
        try {
            Method method = annotation.annotationType().getMethod(attribute);
            return method.invoke(annotation);
        } catch (ReflectiveOperationException notThere) {
            return null;
        }
    }

    private static Map<String, Object> type(Type generic, Set<Class<?>> seen) {
        Class<?> raw = raw(generic);
        if (raw == String.class || raw == char.class || raw == Character.class || raw == UUID.class) {
            return Map.of("type", "string");
        }
        if (raw == int.class
                || raw == Integer.class
                || raw == short.class
                || raw == Short.class
                || raw == byte.class
                || raw == Byte.class) {
            return Map.of("type", "integer", "format", "int32");
        }
        if (raw == long.class || raw == Long.class || raw == BigInteger.class) {
            return Map.of("type", "integer", "format", "int64");
        }
        if (raw == double.class
                || raw == Double.class
                || raw == float.class
                || raw == Float.class
                || raw == BigDecimal.class) {
            return Map.of("type", "number");
        }
        if (raw == boolean.class || raw == Boolean.class) {
            return Map.of("type", "boolean");
        }
        if (raw.isEnum()) {
            return Map.of(
                    "type",
                    "string",
                    "enum",
                    Arrays.stream(raw.getEnumConstants()).map(Object::toString).toList());
        }
        if (Temporal.class.isAssignableFrom(raw)) {
            return Map.of("type", "string", "format", "date-time");
        }
        if (raw.isArray()) {
            return Map.of("type", "array", "items", type(raw.getComponentType(), seen));
        }
        if (Collection.class.isAssignableFrom(raw)) {
            Type item = generic instanceof ParameterizedType parameterized
                    ? parameterized.getActualTypeArguments()[0]
                    : Object.class;
            return Map.of("type", "array", "items", type(item, seen));
        }
        return schema(raw, seen);
    }

    private static Class<?> raw(Type type) {
        if (type instanceof Class<?> plain) {
            return plain;
        }
        if (type instanceof ParameterizedType parameterized && parameterized.getRawType() instanceof Class<?> raw) {
            return raw;
        }
        return Object.class;
    }
}
