package dev.lanes.spring;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.processing.tracking.TrackingProcessor;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * What the auto-configured {@code Lanes} was wired with (store, snapshots, checkpoints, dead letters, buses,
 * schedulers, each processor's feed), as the start's log line and the health indicator's details show it, and how far
 * its processors fed from the store have caught up with the store's head as it was when they were built.
 *
 * <p>Filled once, while the {@code Lanes} bean is built (empty when the application declares its own); read from any
 * thread afterwards. Once a processor has caught up it stays so: only the catch-up at start is waited for.
 */
final class LanesWiring {
    /**
     * A processor fed from the store: its checkpoint must reach {@code target}; {@code local} holds this instance's
     * {@code TrackingProcessor} of it once {@code Lanes} built it.
     */
    record Tracked(
            String name,
            LanesProperties.Feed feed,
            Set<MaterializedNamedAggregate> types,
            CheckpointStore checkpoints,
            AtomicReference<@Nullable TrackingProcessor> local) {
        Tracked {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(feed, "feed");
            types = Set.copyOf(types);
            Objects.requireNonNull(checkpoints, "checkpoints");
            Objects.requireNonNull(local, "local");
        }
    }

    private final Map<String, Object> details = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, String> feeds = Collections.synchronizedMap(new LinkedHashMap<>());
    private final List<Tracked> tracked = new CopyOnWriteArrayList<>();
    private final Map<String, Long> targets = new ConcurrentHashMap<>();
    private final Set<String> caughtUp = ConcurrentHashMap.newKeySet();

    void describe(String key, Object value) {
        details.put(key, value);
    }

    void feed(String processor, String feed) {
        feeds.put(processor, feed);
    }

    void track(Tracked processor) {
        tracked.add(processor);
    }

    /** The processors fed from the store, in the order they were built. */
    List<Tracked> tracked() {
        return List.copyOf(tracked);
    }

    /**
     * Records the head each processor fed from the store must reach, read now (blocking, at most {@code timeout} each).
     *
     * @throws IllegalStateException naming the processor when the store did not answer in time
     */
    void recordTargets(StoreHead head, Duration timeout) {
        for (Tracked processor : tracked) {
            Long last = head.lastPosition(processor.types()).block(timeout);
            if (last == null) {
                throw new IllegalStateException("the store gave no last position for " + processor.name());
            }
            targets.put(processor.name(), last);
        }
    }

    /**
     * The processors fed from the store that have not yet reached the head recorded at start: name to {@code
     * checkpoint} and {@code target}; empty once all have. Reads each checkpoint (blocking, at most {@code timeout}); a
     * checkpoint that could not be read counts as behind, its {@code checkpoint} -1.
     */
    Map<String, Map<String, Long>> behind(Duration timeout) {
        Map<String, Map<String, Long>> behind = new LinkedHashMap<>();
        for (Tracked processor : tracked) {
            if (caughtUp.contains(processor.name())) {
                continue;
            }
            long target = targets.getOrDefault(processor.name(), 0L);
            long checkpoint = checkpoint(processor, timeout);
            if (checkpoint >= target) {
                caughtUp.add(processor.name());
            } else {
                behind.put(processor.name(), Map.of("checkpoint", checkpoint, "target", target));
            }
        }
        return behind;
    }

    private static long checkpoint(Tracked processor, Duration timeout) {
        try {
            Long loaded = processor.checkpoints().load(processor.name()).block(timeout);
            return loaded == null ? -1 : loaded;
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Store, snapshots, checkpoints, dead letters, buses, schedulers and {@code processors} (name to feed). */
    Map<String, Object> details() {
        Map<String, Object> all;
        synchronized (details) {
            all = new LinkedHashMap<>(details);
        }
        synchronized (feeds) {
            if (!feeds.isEmpty()) {
                all.put("processors", new LinkedHashMap<>(feeds));
            }
        }
        return all;
    }

    /** One line: {@code store=..., snapshots=..., ..., processors={BalanceProjection=replay, ...}}. */
    String summary() {
        StringBuilder line = new StringBuilder();
        details().forEach((key, value) -> {
            if (line.length() > 0) {
                line.append(", ");
            }
            line.append(key).append('=').append(value);
        });
        return line.toString();
    }
}
