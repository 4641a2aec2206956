package dev.lanes.eventsourcing.types;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Stable names for event classes, and the upcasters that read older revisions: what a codec (a {@link
 * dev.lanes.eventsourcing.PayloadCodec} such as the PostgreSQL store's {@code JacksonEventSerializer}) writes instead
 * of Java class names, so a class can be renamed or moved, and its
 * fields changed, without making the events already stored or sent unreadable. Immutable and thread-safe once built.
 *
 * <p><b>Writing.</b> A payload of a registered class is stored under its name and current revision; a payload of any
 * other class under its Java class name, unrevised ({@link #UNREVISED}), as every event was before type names existed.
 *
 * <p><b>Reading.</b> The stored (type, revision) goes through the upcasters registered for it, one after another, until
 * none is registered for the result. A registered name must then be at its current revision, or the read fails naming
 * the stored and current revisions; an unregistered name is read as a Java class name, so existing data written under
 * class names stays readable without a migration (register an upcaster from {@code (oldClassName, 0)} to move it to
 * a registered name when the class is renamed).
 *
 * <pre>{@code
 * EventTypes types = EventTypes.builder()
 *         .register(Deposited.class, "bank.Deposited", 2)
 *         // revision 1 had "amount" in whole units; revision 2 has "cents"
 *         .upcaster("bank.Deposited", 1, event -> event.as("bank.Deposited", 2))
 *         // stored before registration, under the old class name
 *         .upcaster("com.example.OldDeposited", 0, event -> event.as("bank.Deposited", 1))
 *         .build();
 * PostgresEventStore store = PostgresEventStore.connect(url, user, password, options,
 *         new JacksonEventSerializer(JacksonEventSerializer.defaultObjectMapper(), types));
 * }</pre>
 *
 * <p>An upcaster reads the payload in the representation of the codec that applies it ({@code JsonNode} for the
 * Jackson codecs): {@code ((ObjectNode) event.payload()).put("cents", ...)}.
 */
public final class EventTypes {
    /** The revision of payloads stored without a registration (under their class name). */
    public static final int UNREVISED = 0;

    /** Upcasters one read may apply before it is taken for a cycle. */
    static final int MAX_CHAIN = 64;

    /** No registration: every payload under its class name, as before type names existed. */
    public static final EventTypes NONE = builder().build();

    /**
     * A registered class's stored name and current revision.
     *
     * @param type the class
     * @param name its stored name
     * @param revision its current revision, at least 1
     */
    public record Registration(Class<?> type, String name, int revision) {}

    private record Key(String type, int revision) {}

    private final Map<Class<?>, Registration> byClass;
    private final Map<String, Registration> byName;
    private final Map<Key, Upcaster<?>> upcasters;

    private EventTypes(Builder builder) {
        this.byClass = Map.copyOf(builder.byClass);
        this.byName = Map.copyOf(builder.byName);
        this.upcasters = Map.copyOf(builder.upcasters);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The registration of this class, or {@code null} when it is stored under its class name. */
    public @Nullable Registration registration(Class<?> type) {
        return byClass.get(type);
    }

    /** The registration of this stored name, or {@code null} when it is a class name. */
    public @Nullable Registration registration(String name) {
        return byName.get(name);
    }

    /**
     * The stored event at the current revision of its type, through the upcasters registered for it.
     *
     * @param <D> the payload's representation, the one the registered upcasters read
     * @throws UpcastingException if an upcaster fails (or reads another representation), the chain repeats a (type,
     *     revision) or is longer than {@value #MAX_CHAIN}, or a registered type ends below or above its current revision
     */
    public <D> SerializedEvent<D> upcast(SerializedEvent<D> stored) {
        SerializedEvent<D> current = stored;
        Set<Key> seen = new HashSet<>();
        for (Upcaster<D> next = upcasterFor(current); next != null; next = upcasterFor(current)) {
            if (!seen.add(new Key(current.type(), current.revision())) || seen.size() > MAX_CHAIN) {
                throw new UpcastingException(
                        "Upcasting " + stored + " loops at " + current + " after " + seen.size() + " step(s)",
                        new IllegalStateException(seen.toString()));
            }
            current = apply(next, stored, current);
        }
        Registration registration = byName.get(current.type());
        if (registration != null && registration.revision() != current.revision()) {
            throw new UpcastingException(
                    "Stored event " + stored + " reads as " + current + " but " + current.type() + " is at revision "
                            + registration.revision() + ": no upcaster from " + current,
                    new IllegalStateException(current.payload().toString()));
        }
        return current;
    }

    @SuppressWarnings("unchecked") // an upcaster of another representation fails in apply, as a ClassCastException
    private <D> @Nullable Upcaster<D> upcasterFor(SerializedEvent<D> event) {
        return (Upcaster<D>) upcasters.get(new Key(event.type(), event.revision()));
    }

    private static <D> SerializedEvent<D> apply(
            Upcaster<D> upcaster, SerializedEvent<D> stored, SerializedEvent<D> current) {
        try {
            return Objects.requireNonNull(upcaster.upcast(current), "upcaster returned null");
        } catch (RuntimeException e) {
            throw new UpcastingException(
                    "Upcaster of " + current + " failed reading stored event " + stored + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "EventTypes[" + byName.size() + " type(s), " + upcasters.size() + " upcaster(s)]";
    }

    /** Collects registrations; {@link #build()} checks nothing more, each call is checked as it is made. */
    public static final class Builder {
        private final Map<Class<?>, Registration> byClass = new HashMap<>();
        private final Map<String, Registration> byName = new HashMap<>();
        private final Map<Key, Upcaster<?>> upcasters = new HashMap<>();

        private Builder() {}

        /** Registers {@code type} under its simple class name at revision 1. */
        public Builder register(Class<?> type) {
            return register(type, type.getSimpleName(), 1);
        }

        /**
         * Stores {@code type} under {@code name} at {@code revision}.
         *
         * @throws IllegalArgumentException if the name is blank or taken, the class registered, or the revision below 1
         */
        public Builder register(Class<?> type, String name, int revision) {
            Objects.requireNonNull(type, "type");
            requireName(name);
            if (revision < 1) {
                throw new IllegalArgumentException("revision of " + name + " must be at least 1: " + revision);
            }
            Registration registration = new Registration(type, name, revision);
            Registration sameClass = byClass.get(type);
            if (sameClass != null) {
                throw new IllegalArgumentException(type.getName() + " is already registered as " + sameClass.name());
            }
            Registration sameName = byName.get(name);
            if (sameName != null) {
                throw new IllegalArgumentException("Type name " + name + " is already taken by "
                        + sameName.type().getName());
            }
            byClass.put(type, registration);
            byName.put(name, registration);
            return this;
        }

        /**
         * Reads events stored as ({@code type}, {@code revision}) through {@code upcaster}.
         *
         * @param <D> the payload's representation in the codec that reads (a {@code JsonNode} for the Jackson codecs)
         * @throws IllegalArgumentException if that (type, revision) already has an upcaster, or the revision is negative
         */
        public <D> Builder upcaster(String type, int revision, Upcaster<D> upcaster) {
            requireName(type);
            Objects.requireNonNull(upcaster, "upcaster");
            if (revision < 0) {
                throw new IllegalArgumentException("revision of " + type + " must not be negative: " + revision);
            }
            if (upcasters.putIfAbsent(new Key(type, revision), upcaster) != null) {
                throw new IllegalArgumentException(type + "@" + revision + " already has an upcaster");
            }
            return this;
        }

        public EventTypes build() {
            return new EventTypes(this);
        }

        private static void requireName(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("a type name must not be blank: '" + name + "'");
            }
        }
    }
}
