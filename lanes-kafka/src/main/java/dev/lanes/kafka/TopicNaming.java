package dev.lanes.kafka;

import dev.lanes.api.NamedAggregate;

/**
 * Which topics carry what. The default, {@link #perContext(String)}, gives each bounded context one command topic and
 * one event topic, shared by the aggregate types of that context: {@code <prefix>.<context>.commands} and {@code
 * <prefix>.<context>.events}, one reply topic for the whole deployment, {@code <prefix>.replies}, and consumer groups
 * {@code <prefix>.<consumer>}.
 *
 * <p>Every instance of a deployment must use the same naming. Implementations must be pure functions of their input.
 */
public interface TopicNaming {

    /** The topic of the commands for {@code type}. */
    String commands(NamedAggregate type);

    /** The topic of the event streams of {@code type}. */
    String events(NamedAggregate type);

    /** The topic where an instance that handled a command answers the instance that sent it. */
    String replies();

    /**
     * The topic where records no lane can take (an unreadable envelope, a command type no receiver serves) are kept, by
     * the default {@link RecordParkingLot}; one per service. By default the reply topic's name with {@code .parked}.
     */
    default String parkedRecords() {
        return replies() + ".parked";
    }

    /**
     * The consumer group id of {@code consumer}: {@code "commands"} for the command dispatchers, or an event
     * processor's name. Every instance of a deployment must map a consumer to the same group.
     */
    String group(String consumer);

    /**
     * One command and one event topic per bounded context, one reply topic, one parked-records topic.
     *
     * @throws IllegalArgumentException naming the value if {@code prefix} is blank
     */
    static TopicNaming perContext(String prefix) {
        String checked = Checks.notBlank(prefix, "prefix");
        return new TopicNaming() {
            @Override
            public String commands(NamedAggregate type) {
                return checked + "." + type.contextName() + ".commands";
            }

            @Override
            public String events(NamedAggregate type) {
                return checked + "." + type.contextName() + ".events";
            }

            @Override
            public String replies() {
                return checked + ".replies";
            }

            @Override
            public String parkedRecords() {
                return checked + ".parked-records";
            }

            @Override
            public String group(String consumer) {
                return checked + "." + consumer;
            }

            @Override
            public String toString() {
                return "TopicNaming.perContext(" + checked + ")";
            }
        };
    }
}
