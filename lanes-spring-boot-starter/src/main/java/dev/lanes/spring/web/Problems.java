package dev.lanes.spring.web;

import dev.lanes.command.CommandBusOverloadedException;
import dev.lanes.command.CommandRejectedEarlierException;
import dev.lanes.command.RequestIdReusedException;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.UnknownAggregateTypeException;
import dev.lanes.command.lane.CommandParkedException;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.eventsourcing.DuplicateAggregateIdException;
import dev.lanes.eventsourcing.EventVersionConflictException;
import dev.lanes.modeling.CommandRejectedException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;

/**
 * Turns what ended a send into an RFC 9457 problem answer: 400 bad input, 404 an unknown aggregate or command, 409 a
 * version conflict or an aggregate whose parked commands hold it, 413 a body over {@code lanes.web.max-body-size}, 422
 * a rule violation (also when a refused request id is resent: {@code rejectedAt} says when) or a reused request id,
 * 503 with {@code Retry-After} for overload, a stop or a timeout (with {@code storage}: whether the command is stored),
 * 500 anything else (logged at WARN). Every problem
 * names the request id, so a client can resend with it. Thread-safe.
 */
final class Problems {
    /** The prefix of every problem type: {@code urn:lanes:problem:version-conflict}. */
    static final String TYPE_PREFIX = "urn:lanes:problem:";

    private static final Logger log = LoggerFactory.getLogger(Problems.class);

    private final String retryAfter;

    Problems(Duration retryAfter) {
        this.retryAfter = Long.toString(retryAfter.getSeconds());
    }

    Answer answer(Throwable error, String requestId, boolean generated) {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("requestId", requestId);
        extra.put("requestIdGenerated", generated);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(LanesWeb.IDEMPOTENCY_KEY, requestId);
        ProblemDetail problem = problem(error, extra, headers);
        extra.forEach(problem::setProperty);
        return new Answer(problem.getStatus(), headers, problem, true);
    }

    /** A key that cannot be a request id: no request id is echoed. */
    Answer badKey(String detail) {
        return new Answer(400, Map.of(), of(400, "bad-idempotency-key", "Unusable Idempotency-Key", detail), true);
    }

    private ProblemDetail problem(Throwable error, Map<String, Object> extra, Map<String, String> headers) {
        String detail = String.valueOf(error.getMessage());
        if (error instanceof EndpointException refused) {
            return of(refused.status(), refused.type(), refused.title(), detail);
        }
        if (error instanceof CommandValidationException invalid) {
            extra.put("violations", invalid.violations());
            return of(400, "invalid-command", "Invalid command", detail);
        }
        if (error instanceof UnknownAggregateTypeException) {
            return of(404, "unknown-aggregate", "Unknown aggregate", detail);
        }
        if (error instanceof EventVersionConflictException || error instanceof DuplicateAggregateIdException) {
            return of(409, "version-conflict", "Version conflict", detail);
        }
        if (error instanceof CommandParkedException) {
            // not run: kept in the dead-letter queue, it runs when the aggregate's parked commands are retried
            extra.put("parked", true);
            return of(409, "aggregate-parked", "Parked behind the aggregate's parked commands", detail);
        }
        if (error instanceof RequestIdReusedException reused) {
            extra.put("storedHash", reused.storedHash());
            extra.put("sentHash", reused.sentHash());
            return of(422, "request-id-reused", "Idempotency-Key reused with another command", detail);
        }
        if (error instanceof CommandRejectedEarlierException earlier) {
            // a resend of a refused request id: the first answer, whatever the aggregate's state is now
            String type = earlier.refusal().errorType();
            extra.put("rejection", type.substring(Math.max(type.lastIndexOf('.'), type.lastIndexOf('$')) + 1));
            extra.put("rejectedAt", earlier.refusal().refusedAt().toString());
            return of(422, "command-rejected", "Command rejected", detail);
        }
        if (error instanceof CommandRejectedException) {
            extra.put("rejection", error.getClass().getSimpleName());
            return of(422, "command-rejected", "Command rejected", detail);
        }
        if (error instanceof StageNotReachedException notReached) {
            headers.put("Retry-After", retryAfter);
            extra.put("reason", notReached.reason().name());
            extra.put("storage", notReached.storage().name());
            extra.put("requested", notReached.requested().name());
            if (notReached.reached() != null) {
                extra.put("reached", notReached.reached().name());
            }
            return of(503, "stage-not-reached", "Stage not reached", detail);
        }
        if (error instanceof CommandBusOverloadedException
                || (error instanceof ExchangeRejectedException rejected
                        && rejected.reason().retryLater())) {
            headers.put("Retry-After", retryAfter);
            extra.put("storage", StageNotReachedException.Storage.NOT_STORED.name());
            return of(503, "overloaded", "Overloaded", detail);
        }
        log.warn("Lanes web endpoint: request {} failed", extra.get("requestId"), error);
        extra.put("exception", error.getClass().getName());
        return of(500, "command-failed", "Command failed", detail);
    }

    private static ProblemDetail of(int status, String type, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(status), detail);
        problem.setType(URI.create(TYPE_PREFIX + type));
        problem.setTitle(title);
        return problem;
    }
}
