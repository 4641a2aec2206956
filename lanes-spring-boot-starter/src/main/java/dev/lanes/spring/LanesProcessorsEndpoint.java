package dev.lanes.spring;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.tracking.SegmentStatus;
import dev.lanes.processing.tracking.TrackingOperations;
import dev.lanes.processing.tracking.TrackingProcessor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import reactor.core.publisher.Mono;

/**
 * The {@code lanesprocessors} Actuator endpoint: the processors this application feeds from the store ({@code
 * lanes.processors.feed.<name>=tracking|replay}), per segment, and the operator's actions on them, as {@code lanes
 * processors} offers them from the command line ({@link TrackingOperations}).
 *
 * <ul>
 *   <li>{@code GET /actuator/lanesprocessors}: every such processor's segments (owner, checkpoint, head, lag in streams
 *       and seconds, state, parked streams);
 *   <li>{@code GET /actuator/lanesprocessors/{name}}: one processor's;
 *   <li>{@code POST /actuator/lanesprocessors/{name}} with {@code {"action": "pause|resume|reset|seek", "segment": n,
 *       "position": p}} ({@code segment} optional: every segment; {@code position} for a seek only): written to the
 *       processor's checkpoint store; the instance owning each segment acts at its next tick, in this process or
 *       another.
 * </ul>
 *
 * <p>Blocking, at most {@link #TIMEOUT} per store call. An unknown processor, action or segment is an {@link
 * IllegalArgumentException} naming it, which Actuator answers with 400.
 */
@Endpoint(id = "lanesprocessors")
public final class LanesProcessorsEndpoint {
    /** How long one store call of the endpoint may take. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final LanesWiring wiring;
    private final EventStore store;
    private final DeadLetterQueue deadLetters;

    LanesProcessorsEndpoint(LanesWiring wiring, EventStore store, DeadLetterQueue deadLetters) {
        this.wiring = wiring;
        this.store = store;
        this.deadLetters = deadLetters;
    }

    /** Every processor fed from the store: name to its segments. */
    @ReadOperation
    public Map<String, List<Map<String, Object>>> processors() {
        Map<String, List<Map<String, Object>>> all = new LinkedHashMap<>();
        for (LanesWiring.Tracked tracked : wiring.tracked()) {
            all.put(tracked.name(), segments(tracked));
        }
        return all;
    }

    /** One processor's segments. */
    @ReadOperation
    public List<Map<String, Object>> processor(@Selector String name) {
        return segments(tracked(name));
    }

    /**
     * Pauses, resumes, resets or seeks one segment of the processor, or every segment when {@code segment} is null;
     * answers which segments were asked.
     */
    @WriteOperation
    public Map<String, Object> act(
            @Selector String name, String action, @Nullable Integer segment, @Nullable Long position) {
        String processor = tracked(name).name();
        TrackingOperations operations = operations(tracked(name));
        Mono<List<Integer>> asked = switch (action.toLowerCase(Locale.ROOT)) {
            case "pause" -> operations.pause(processor, segment);
            case "resume" -> operations.resume(processor, segment);
            case "reset" -> operations.reset(processor, segment);
            case "seek" -> {
                if (position == null) {
                    throw new IllegalArgumentException("A seek of " + processor + " needs a position");
                }
                yield operations.seek(processor, segment, position);
            }
            default ->
                throw new IllegalArgumentException(
                        "Unknown action '" + action + "' for " + processor + ": expected pause, resume, reset or seek");
        };
        List<Integer> segments = Objects.requireNonNull(asked.block(TIMEOUT), "the checkpoint store completed empty");
        TrackingProcessor local = tracked(name).local().get();
        if (local != null && local.isReading()) {
            // answered once this instance's next tick saw it: a segment paused here is read no more when this returns
            local.operationsSeen()
                    .onErrorResume(IllegalStateException.class, stopped -> Mono.empty())
                    .block(TIMEOUT);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("processor", processor);
        answer.put("action", action.toLowerCase(Locale.ROOT));
        answer.put("segments", segments);
        return answer;
    }

    private LanesWiring.Tracked tracked(String name) {
        return wiring.tracked().stream()
                .filter(tracked -> tracked.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No processor named " + name + " is fed from the store"
                        + " here (fed from the store: "
                        + wiring.tracked().stream()
                                .map(LanesWiring.Tracked::name)
                                .toList() + ")"));
    }

    private TrackingOperations operations(LanesWiring.Tracked tracked) {
        return TrackingOperations.of(tracked.checkpoints(), store, deadLetters);
    }

    private List<Map<String, Object>> segments(LanesWiring.Tracked tracked) {
        List<SegmentStatus> statuses = Objects.requireNonNull(
                operations(tracked)
                        .status(tracked.name())
                        .onErrorReturn(IllegalArgumentException.class, List.of())
                        .block(TIMEOUT),
                "the stores completed empty");
        return statuses.stream().map(LanesProcessorsEndpoint::describe).toList();
    }

    private static Map<String, Object> describe(SegmentStatus status) {
        Map<String, Object> segment = new LinkedHashMap<>();
        segment.put("segment", status.segment().index());
        segment.put("segments", status.segment().count());
        segment.put("state", status.state().name());
        segment.put("owner", status.owner() == null ? "" : status.owner());
        segment.put("checkpoint", status.checkpoint());
        segment.put("head", status.head());
        segment.put("lagStreams", status.lagStreams());
        segment.put("lagSeconds", status.lagTime().toSeconds());
        segment.put("parked", status.parked());
        return segment;
    }
}
