package dev.lanes.spring;

/**
 * A start refused because the application's configuration does not fit Lanes (a store that cannot be built, a property
 * that contradicts another): its message names what is missing or wrong and the values involved, and {@link
 * LanesFailureAnalyzer} shows it, with {@link #action()}, as Spring Boot's "APPLICATION FAILED TO START" report.
 */
final class LanesConfigurationException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * @param message what is wrong, in one line, naming the properties and values involved
     * @param action what the application can do about it
     */
    LanesConfigurationException(String message, String action) {
        super(message);
        this.action = action;
    }

    /** What the application can do about it. */
    String action() {
        return action;
    }
}
