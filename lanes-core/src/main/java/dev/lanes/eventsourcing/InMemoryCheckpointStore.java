package dev.lanes.eventsourcing;

import dev.lanes.internal.Require;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/** Checkpoints, claims and heartbeats in maps under one monitor; claims and heartbeats expire on the given clock. */
final class InMemoryCheckpointStore implements CheckpointStore {
    private final Clock clock;
    /** Per processor, its segments in index order. */
    private final Map<String, Entry[]> entries = new TreeMap<>();
    /** Per processor, its instances and until when each is alive. */
    private final Map<String, Map<String, Instant>> alive = new HashMap<>();

    /** One segment's checkpoint and claim; {@code owner} null when nobody holds it. */
    private record Entry(
            long position,
            @Nullable String owner,
            Instant claimedUntil,
            boolean paused,
            @Nullable Long requestedCheckpoint) {
        static final Entry EMPTY = new Entry(0, null, Instant.MIN, false, null);

        boolean claimableBy(String candidate, Instant now) {
            return owner == null || owner.equals(candidate) || !claimedUntil.isAfter(now);
        }

        Entry withPosition(long position) {
            return new Entry(position, owner, claimedUntil, paused, requestedCheckpoint);
        }

        Entry withOwner(@Nullable String owner, Instant claimedUntil) {
            return new Entry(position, owner, claimedUntil, paused, requestedCheckpoint);
        }
    }

    InMemoryCheckpointStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Mono<Integer> segments(String processor, int count) {
        return locked(() -> {
            Require.notBlank(processor, "processor");
            Segment.requireCount(count);
            Entry[] segments = entries.computeIfAbsent(processor, name -> empty(count));
            if (segments.length != count) {
                throw new IllegalStateException(mismatch(processor, segments.length, count));
            }
            return count;
        });
    }

    static String mismatch(String processor, int recorded, int wanted) {
        return "Processor " + processor + " has " + recorded + " segment(s) with their checkpoints, but is started"
                + " with " + wanted + ": checkpoints are not split or merged; start it with " + recorded
                + " segment(s), or give the rebuilt projection a new processor name";
    }

    private static Entry[] empty(int count) {
        Entry[] segments = new Entry[count];
        java.util.Arrays.fill(segments, Entry.EMPTY);
        return segments;
    }

    @Override
    public Mono<Boolean> claim(String processor, int segment, String owner, Duration lease) {
        return locked(() -> {
            check(processor, owner);
            Require.positive(lease, "lease");
            Instant now = clock.instant();
            Entry[] segments = segmentsFor(processor, segment, true);
            Entry entry = segments[segment];
            if (!entry.claimableBy(owner, now)) {
                return false;
            }
            segments[segment] = entry.withOwner(owner, now.plus(lease));
            return true;
        });
    }

    @Override
    public Mono<Long> load(String processor, int segment) {
        return locked(() -> {
            Require.notBlank(processor, "processor");
            Entry[] segments = entries.get(processor);
            return segments == null || segment >= segments.length ? 0L : segments[segment].position();
        });
    }

    @Override
    public Mono<Boolean> save(String processor, int segment, String owner, long position) {
        return locked(() -> {
            check(processor, owner);
            requirePosition(position);
            return update(processor, segment, owner, entry -> entry.withPosition(position));
        });
    }

    @Override
    public Mono<Void> release(String processor, int segment, String owner) {
        return locked(() -> {
                    check(processor, owner);
                    return update(processor, segment, owner, entry -> entry.withOwner(null, Instant.MIN));
                })
                .then();
    }

    @Override
    public Mono<Integer> heartbeat(String processor, String owner, Duration lease) {
        return locked(() -> {
            check(processor, owner);
            Require.positive(lease, "lease");
            Instant now = clock.instant();
            Map<String, Instant> instances = alive.computeIfAbsent(processor, name -> new HashMap<>());
            instances.put(owner, now.plus(lease));
            instances.values().removeIf(until -> !until.isAfter(now));
            return instances.size();
        });
    }

    @Override
    public Mono<Void> leave(String processor, String owner) {
        return locked(() -> {
                    check(processor, owner);
                    Map<String, Instant> instances = alive.get(processor);
                    return instances != null && instances.remove(owner) != null;
                })
                .then();
    }

    @Override
    public Mono<List<SegmentCheckpoint>> checkpoints(String processor) {
        return locked(() -> {
            Require.notBlank(processor, "processor");
            Entry[] segments = entries.get(processor);
            List<SegmentCheckpoint> all = new ArrayList<>();
            for (int i = 0; segments != null && i < segments.length; i++) {
                Entry entry = segments[i];
                all.add(new SegmentCheckpoint(
                        processor,
                        new Segment(i, segments.length),
                        entry.position(),
                        entry.owner(),
                        entry.owner() == null ? null : entry.claimedUntil(),
                        entry.paused(),
                        entry.requestedCheckpoint()));
            }
            return List.copyOf(all);
        });
    }

    @Override
    public Mono<List<String>> processors() {
        return locked(() -> List.copyOf(entries.keySet()));
    }

    @Override
    public Mono<Boolean> pause(String processor, int segment, boolean paused) {
        return locked(() -> {
            Require.notBlank(processor, "processor");
            Entry[] segments = entries.get(processor);
            if (segments == null || segment < 0 || segment >= segments.length) {
                return false;
            }
            Entry entry = segments[segment];
            segments[segment] = new Entry(
                    entry.position(), entry.owner(), entry.claimedUntil(), paused, entry.requestedCheckpoint());
            return true;
        });
    }

    @Override
    public Mono<Boolean> requestSeek(String processor, int segment, long checkpoint) {
        return locked(() -> {
            Require.notBlank(processor, "processor");
            requirePosition(checkpoint);
            Entry[] segments = entries.get(processor);
            if (segments == null || segment < 0 || segment >= segments.length) {
                return false;
            }
            Entry entry = segments[segment];
            segments[segment] =
                    new Entry(entry.position(), entry.owner(), entry.claimedUntil(), entry.paused(), checkpoint);
            return true;
        });
    }

    @Override
    public Mono<Boolean> seek(String processor, int segment, String owner, long checkpoint) {
        return locked(() -> {
            check(processor, owner);
            requirePosition(checkpoint);
            return update(
                    processor,
                    segment,
                    owner,
                    entry -> new Entry(
                            checkpoint,
                            entry.owner(),
                            entry.claimedUntil(),
                            entry.paused(),
                            Long.valueOf(checkpoint).equals(entry.requestedCheckpoint())
                                    ? null
                                    : entry.requestedCheckpoint()));
        });
    }

    /** Under the monitor: applies {@code change} to the segment if {@code owner} holds it; whether it did. */
    private boolean update(
            String processor, int segment, String owner, java.util.function.UnaryOperator<Entry> change) {
        Entry[] segments = entries.get(processor);
        if (segments == null || segment < 0 || segment >= segments.length) {
            return false;
        }
        Entry entry = segments[segment];
        if (!owner.equals(entry.owner())) {
            return false;
        }
        segments[segment] = change.apply(entry);
        return true;
    }

    /** The processor's segments, recorded as one segment on a first claim of segment 0 (a processor of one). */
    private Entry[] segmentsFor(String processor, int segment, boolean create) {
        Entry[] segments =
                create && segment == 0 ? entries.computeIfAbsent(processor, name -> empty(1)) : entries.get(processor);
        if (segments == null || segment < 0 || segment >= segments.length) {
            throw new IllegalArgumentException("Processor " + processor + " has no segment " + segment + " (it has "
                    + (segments == null ? "no segments recorded" : segments.length + " segment(s)") + ")");
        }
        return segments;
    }

    private <T> Mono<T> locked(Supplier<T> action) {
        return Mono.fromCallable(() -> {
            synchronized (entries) {
                return action.get();
            }
        });
    }

    private static void requirePosition(long position) {
        if (position < 0) {
            throw new IllegalArgumentException("position must not be negative: " + position);
        }
    }

    private static void check(String processor, String owner) {
        Require.notBlank(processor, "processor");
        Require.notBlank(owner, "owner");
    }

    @Override
    public String toString() {
        synchronized (entries) {
            return "InMemoryCheckpointStore[" + entries.size() + " processor(s)]";
        }
    }

    /** Lost with the process. */
    @Override
    public boolean durable() {
        return false;
    }
}
