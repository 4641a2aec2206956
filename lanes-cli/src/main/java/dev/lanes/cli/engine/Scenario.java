package dev.lanes.cli.engine;

/** The {@code bench} scenarios, named as on the command line. */
public enum Scenario {
    THROUGHPUT("throughput", "zero-cost handler: the dispatch path itself"),
    CPU("cpu", "a handler that burns about 20 us of CPU"),
    HOT_KEY("hot-key", "one hot id whose handler waits 2 ms (Mono.delay) on 1% of its messages"),
    STUCK_LANE("stuck-lane", "one lane whose handler never completes; every other lane must be handled"),
    MANY_TYPES("many-types", "T aggregate types sharing one scheduler supplier"),
    COMMAND("command", "the command path: gateway, command bus, command dispatcher, store, PROCESSED");

    private final String label;
    private final String description;

    Scenario(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** As on the command line: {@code hot-key}. */
    public String label() {
        return label;
    }

    /** What the scenario measures, one line. */
    public String description() {
        return description;
    }
}
