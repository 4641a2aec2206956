package dev.lanes.cli.bank;

import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.ExchangeRejectedException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The clients' side of the books: every command they sent, by its unique reference, and the answer it got. Audited
 * against the event store after the run.
 */
final class Ledger {

    /** What a client asked for. */
    enum Kind {
        DEPOSIT,
        WITHDRAWAL,
        /** A withdrawal whose reference starts a transfer; the saga credits the target (or refunds the source). */
        TRANSFER
    }

    /** The answer. */
    enum Answer {
        PENDING,
        /** Reached its wait stage. */
        OK,
        /** A bank rule refused it (insufficient funds...): processed, nothing stored. */
        REFUSED,
        /** Not processed, nothing stored: overload, lane full, runtime stopping. */
        REJECTED,
        /** Its wait ended before its stage (a stop, a timeout), but its events are stored. */
        STORED,
        /** Its wait ended before its stage and whether it is stored was not known: the audit asks the store. */
        UNKNOWN
    }

    /**
     * One command; {@code answer} is written once, by the thread that got the answer. A command sent during the
     * warm-up is not {@code measured}: audited as any other, counted in no throughput and no latency.
     */
    static final class Entry {
        final String reference;
        final Kind kind;
        final String account;
        final long amount;
        final @Nullable String target;
        final WaitStage stage;
        final boolean measured;
        volatile Answer answer = Answer.PENDING;

        Entry(
                String reference,
                Kind kind,
                String account,
                long amount,
                @Nullable String target,
                WaitStage stage,
                boolean measured) {
            this.reference = reference;
            this.kind = kind;
            this.account = account;
            this.amount = amount;
            this.target = target;
            this.stage = stage;
            this.measured = measured;
        }
    }

    /** Each client's commands, by client id. */
    private final ConcurrentHashMap<Integer, Book> books = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final LongAdder sent = new LongAdder();
    private final LongAdder answered = new LongAdder();
    private volatile long lastAnswerAt = System.nanoTime();

    /**
     * One client's commands in send order, written by that client only: the {@code n}th command has the reference
     * {@code c<client>.<n>}, handed out by {@link #nextReference} and added before the next one is asked for. Guarded
     * by its own monitor, so the audit may read while a cut-short run still sends.
     */
    final class Book {
        private final int client;
        private final List<Entry> entries = new ArrayList<>();
        private int handedOut;

        private Book(int client) {
            this.client = client;
        }

        /** The next command's reference, {@code c<client>.<n>}; its entry is added before another is asked for. */
        synchronized String nextReference() {
            if (handedOut != entries.size()) {
                throw new IllegalStateException("client " + client + " never added command " + handedOut);
            }
            handedOut++;
            return "c" + client + "." + handedOut;
        }

        /** Adds the command whose reference {@link #nextReference} handed out last. */
        Entry add(Entry entry) {
            synchronized (this) {
                if (handedOut != entries.size() + 1) {
                    throw new IllegalStateException(
                            "client " + client + " added " + entry.reference + " with no reference handed out for it");
                }
                entries.add(entry);
            }
            sent.increment();
            return entry;
        }

        private synchronized @Nullable Entry get(int sequence) {
            return sequence >= 1 && sequence <= entries.size() ? entries.get(sequence - 1) : null;
        }

        private synchronized List<Entry> entries() {
            return List.copyOf(entries);
        }
    }

    /** Client {@code client}'s book, made on first use. */
    Book book(int client) {
        return books.computeIfAbsent(client, Book::new);
    }

    void answer(Entry entry, Answer answer, @Nullable Throwable error) {
        entry.answer = answer;
        if (error != null) {
            errors.computeIfAbsent(describe(error), key -> new LongAdder()).increment();
        }
        lastAnswerAt = System.nanoTime();
        answered.increment();
    }

    long sent() {
        return sent.sum();
    }

    long answered() {
        return answered.sum();
    }

    long lastAnswerAt() {
        return lastAnswerAt;
    }

    Collection<Entry> entries() {
        List<Entry> all = new ArrayList<>();
        books.values().forEach(book -> all.addAll(book.entries()));
        return all;
    }

    /** The command of a client reference {@code c<client>.<n>}, or {@code null} (another reference, none sent). */
    @Nullable
    Entry get(String reference) {
        int dot = reference.indexOf('.');
        if (!reference.startsWith("c") || dot < 2) {
            return null;
        }
        try {
            Book book = books.get(Integer.parseInt(reference.substring(1, dot)));
            return book == null ? null : book.get(Integer.parseInt(reference.substring(dot + 1)));
        } catch (NumberFormatException notAClient) {
            return null;
        }
    }

    Map<Answer, Long> counts() {
        Map<Answer, Long> counts = new EnumMap<>(Answer.class);
        for (Answer answer : Answer.values()) {
            counts.put(answer, 0L);
        }
        entries().forEach(entry -> counts.merge(entry.answer, 1L, Long::sum));
        return counts;
    }

    long count(Answer answer) {
        return entries().stream().filter(entry -> entry.answer == answer).count();
    }

    /** Commands sent after the warm-up. */
    long measured() {
        return entries().stream().filter(entry -> entry.measured).count();
    }

    /** Commands sent after the warm-up and answered {@code answer}. */
    long measured(Answer answer) {
        return entries().stream()
                .filter(entry -> entry.measured && entry.answer == answer)
                .count();
    }

    /** How many commands failed with each kind of error ("BankRuleViolation", "ExchangeRejectedException LANE_FULL"). */
    Map<String, Long> errors() {
        Map<String, Long> sorted = new TreeMap<>();
        errors.forEach((kind, count) -> sorted.put(kind, count.sum()));
        return sorted;
    }

    private static String describe(Throwable error) {
        if (error instanceof StageNotReachedException notReached) {
            return "StageNotReachedException " + notReached.reason() + " " + notReached.storage();
        }
        Throwable cause = error;
        while (!(cause instanceof ExchangeRejectedException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof ExchangeRejectedException rejected) {
            return "ExchangeRejectedException " + rejected.reason();
        }
        return error.getClass().getSimpleName();
    }
}
