package dev.lanes.tracing;

import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The trace of one message's send or handling (see {@link MessageTracing}). Ended once by the runtime; its methods may
 * be called from the threads the message's work moves to, one at a time (never concurrently for one trace).
 */
public interface MessageTrace {

    /** Traces nothing; carries no header. */
    MessageTrace NONE = new MessageTrace() {
        @Override
        public Map<String, String> headers(Map<String, String> headers) {
            return headers;
        }

        @Override
        public void end(@Nullable Throwable error) {}

        @Override
        public String toString() {
            return "MessageTrace.NONE";
        }
    };

    /** The steps of a command in its lane, in order; each starts where the one before ended. */
    enum Step {
        /** The aggregate's state is at hand (from the cache, or loaded). */
        LOAD,
        /** The handler decided the events. */
        DECIDE,
        /** The store appended them. */
        APPEND,
        /** The bus took them. */
        PUBLISH
    }

    /**
     * The headers the traced message carries on: {@code headers} with this trace's context in place of the one they
     * held. Must not change other headers.
     */
    Map<String, String> headers(Map<String, String> headers);

    /** The lane finished {@code step}; only for a command's trace. */
    default void step(Step step) {}

    /**
     * The traced work ended: {@code null} when it succeeded, else why it failed (a handler's exception, a refusal, a
     * cancellation).
     */
    void end(@Nullable Throwable error);
}
