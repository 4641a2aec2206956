package dev.lanes.spring.web;

/** A request the endpoint refuses before sending anything: its status, problem type, title and detail. */
final class EndpointException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;
    private final String title;

    private EndpointException(int status, String type, String title, String detail) {
        super(detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
    }

    static EndpointException notFound(String type, String title, String detail) {
        return new EndpointException(404, type, title, detail);
    }

    static EndpointException tooLarge(int limit) {
        return new EndpointException(
                413,
                "body-too-large",
                "Command body too large",
                "The command body is larger than lanes.web.max-body-size (" + limit + " bytes)");
    }

    static EndpointException badRequest(String type, String title, String detail) {
        return new EndpointException(400, type, title, detail);
    }

    int status() {
        return status;
    }

    /** The last segment of the problem type URI. */
    String type() {
        return type;
    }

    String title() {
        return title;
    }
}
