package dev.lanes.process;

import dev.lanes.internal.Require;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The state of one process manager instance as its aggregate holds it: the process's own state, whether it started
 * and ended, and its live deadlines.
 *
 * @param key the business key (the instance's aggregate id)
 * @param state the process's state (the initial one before it started)
 * @param handled how many inputs it handled
 * @param started whether an input that starts it was handled
 * @param ended whether it ended (it then ignores every input)
 * @param deadlines the live deadlines: name to deadline id
 * @param commandNext while replaying a stream: the next event is a command, not a state
 * @param <S> the process state
 */
public record ProcessInstance<S>(
        String key,
        S state,
        int handled,
        boolean started,
        boolean ended,
        Map<String, String> deadlines,
        boolean commandNext) {

    public ProcessInstance {
        Require.notBlank(key, "key");
        Objects.requireNonNull(state, "state");
        deadlines = Map.copyOf(deadlines);
    }

    static <S> ProcessInstance<S> initial(String key, S state) {
        return new ProcessInstance<>(key, state, 0, false, false, Map.of(), false);
    }

    ProcessInstance<S> withState(S next) {
        return new ProcessInstance<>(key, next, handled + 1, true, ended, deadlines, false);
    }

    ProcessInstance<S> withCommandNext(boolean next) {
        return new ProcessInstance<>(key, state, handled, started, ended, deadlines, next);
    }

    ProcessInstance<S> withDeadline(String name, String id) {
        Map<String, String> live = new HashMap<>(deadlines);
        live.put(name, id);
        return new ProcessInstance<>(key, state, handled, started, ended, live, commandNext);
    }

    ProcessInstance<S> withoutDeadline(String name, String id) {
        if (!id.equals(deadlines.get(name))) {
            return this;
        }
        Map<String, String> live = new HashMap<>(deadlines);
        live.remove(name);
        return new ProcessInstance<>(key, state, handled, started, ended, live, commandNext);
    }

    ProcessInstance<S> asEnded() {
        return new ProcessInstance<>(key, state, handled, started, true, Map.of(), commandNext);
    }
}
