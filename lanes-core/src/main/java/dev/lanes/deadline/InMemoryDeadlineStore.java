package dev.lanes.deadline;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/** A {@link DeadlineStore} in a map, under one monitor; claims are the instant each entry is free again. */
final class InMemoryDeadlineStore implements DeadlineStore {
    private static final Comparator<Entry> EARLIEST =
            Comparator.comparing((Entry entry) -> entry.deadline.dueAt()).thenComparing(entry -> entry.deadline.id());

    private final Map<String, Entry> entries = new HashMap<>();

    private static final class Entry {
        final Deadline deadline;

        @Nullable
        Instant claimedUntil;

        Entry(Deadline deadline) {
            this.deadline = deadline;
        }

        boolean claimable(Instant now) {
            Instant until = claimedUntil;
            return !deadline.dueAt().isAfter(now) && (until == null || !until.isAfter(now));
        }
    }

    @Override
    public Mono<Void> schedule(Deadline deadline) {
        Objects.requireNonNull(deadline, "deadline");
        return Mono.fromRunnable(() -> {
            synchronized (entries) {
                entries.put(deadline.id(), new Entry(deadline));
            }
        });
    }

    @Override
    public Mono<Integer> cancel(AggregateId target, String name) {
        Objects.requireNonNull(target, "target");
        Require.notBlank(name, "name");
        return Mono.fromCallable(() -> {
            int removed = 0;
            synchronized (entries) {
                for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
                    Deadline deadline = it.next().deadline;
                    if (deadline.target().equals(target) && deadline.name().equals(name)) {
                        it.remove();
                        removed++;
                    }
                }
            }
            return removed;
        });
    }

    @Override
    public Mono<Boolean> remove(String id) {
        Require.notBlank(id, "id");
        return Mono.fromCallable(() -> {
            synchronized (entries) {
                return entries.remove(id) != null;
            }
        });
    }

    @Override
    public Mono<List<Deadline>> claimDue(Instant now, int max, Duration lease) {
        Objects.requireNonNull(now, "now");
        Require.positive(max, "max");
        Require.positive(lease, "lease");
        return Mono.fromCallable(() -> {
            synchronized (entries) {
                List<Entry> due = new ArrayList<>();
                for (Entry entry : entries.values()) {
                    if (entry.claimable(now)) {
                        due.add(entry);
                    }
                }
                due.sort(EARLIEST);
                List<Deadline> claimed = new ArrayList<>();
                for (Entry entry : due.subList(0, Math.min(max, due.size()))) {
                    entry.claimedUntil = now.plus(lease);
                    claimed.add(entry.deadline);
                }
                return claimed;
            }
        });
    }

    @Override
    public Mono<Void> release(String id, Instant retryAt) {
        Require.notBlank(id, "id");
        Objects.requireNonNull(retryAt, "retryAt");
        return Mono.fromRunnable(() -> {
            synchronized (entries) {
                Entry entry = entries.get(id);
                if (entry != null) {
                    entry.claimedUntil = retryAt;
                }
            }
        });
    }

    @Override
    public Mono<List<Deadline>> pending() {
        return Mono.fromCallable(() -> {
            synchronized (entries) {
                return entries.values().stream()
                        .sorted(EARLIEST)
                        .map(entry -> entry.deadline)
                        .toList();
            }
        });
    }

    @Override
    public String toString() {
        synchronized (entries) {
            return "InMemoryDeadlineStore[" + entries.size() + " pending]";
        }
    }
}
