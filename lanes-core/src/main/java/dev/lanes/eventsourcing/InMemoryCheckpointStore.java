package dev.lanes.eventsourcing;

import dev.lanes.internal.Require;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/** Checkpoints and claims in one map under one monitor; claims expire on the given clock. */
final class InMemoryCheckpointStore implements CheckpointStore {
    private final Clock clock;
    private final Map<String, Entry> entries = new HashMap<>();

    /** One processor's checkpoint and claim; {@code owner} null when nobody holds it. */
    private record Entry(long position, @Nullable String owner, Instant claimedUntil) {
        static final Entry EMPTY = new Entry(0, null, Instant.MIN);

        boolean claimableBy(String candidate, Instant now) {
            return owner == null || owner.equals(candidate) || !claimedUntil.isAfter(now);
        }
    }

    InMemoryCheckpointStore(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Mono<Boolean> claim(String processor, String owner, Duration lease) {
        return Mono.fromCallable(() -> {
            check(processor, owner);
            Require.positive(lease, "lease");
            Instant now = clock.instant();
            synchronized (entries) {
                Entry entry = entries.getOrDefault(processor, Entry.EMPTY);
                if (!entry.claimableBy(owner, now)) {
                    return false;
                }
                entries.put(processor, new Entry(entry.position(), owner, now.plus(lease)));
                return true;
            }
        });
    }

    @Override
    public Mono<Long> load(String processor) {
        return Mono.fromCallable(() -> {
            Require.notBlank(processor, "processor");
            synchronized (entries) {
                return entries.getOrDefault(processor, Entry.EMPTY).position();
            }
        });
    }

    @Override
    public Mono<Boolean> save(String processor, String owner, long position) {
        return Mono.fromCallable(() -> {
            check(processor, owner);
            if (position < 0) {
                throw new IllegalArgumentException("position must not be negative: " + position);
            }
            synchronized (entries) {
                Entry entry = entries.get(processor);
                if (entry == null || !owner.equals(entry.owner())) {
                    return false;
                }
                entries.put(processor, new Entry(position, owner, entry.claimedUntil()));
                return true;
            }
        });
    }

    @Override
    public Mono<Void> release(String processor, String owner) {
        return Mono.fromRunnable(() -> {
            check(processor, owner);
            synchronized (entries) {
                Entry entry = entries.get(processor);
                if (entry != null && owner.equals(entry.owner())) {
                    entries.put(processor, new Entry(entry.position(), null, Instant.MIN));
                }
            }
        });
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
