package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The engine's public surface is its API: no method is public only so that another Lanes class can call back. */
class DispatchSurfaceTest {

    @Test
    void theDispatchersPublicMethodsAreItsLifecycleAndItsViews() {
        assertThat(publicMethods(AggregateDispatcher.class))
                .containsExactlyInAnyOrder(
                        "builder",
                        "name",
                        "namedAggregate",
                        "settings",
                        "state",
                        "stats",
                        "prepare",
                        "start",
                        "quiesce",
                        "stopGracefully",
                        "forceStop",
                        "holdsUnleasedWork",
                        "toString");
    }

    @Test
    void aHandlerTimeoutShowsItsLimitsNotHowTheSweepRuns() {
        assertThat(publicMethods(HandlerTimeout.class)).doesNotContain("sweepPeriod");
    }

    private static String[] publicMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(method -> Modifier.isPublic(method.getModifiers()) && !method.isSynthetic())
                .map(Method::getName)
                .toArray(String[]::new);
    }
}
