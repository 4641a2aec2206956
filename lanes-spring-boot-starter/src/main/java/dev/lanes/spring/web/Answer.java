package dev.lanes.spring.web;

import java.util.Map;
import java.util.Objects;

/**
 * What the endpoint answers, before a web framework writes it: the status, headers, and a body (a JSON-ready map, or
 * a {@code ProblemDetail} with {@code problem} set).
 */
record Answer(int status, Map<String, String> headers, Object body, boolean problem) {
    Answer {
        headers = Map.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }
}
