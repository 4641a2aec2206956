package dev.lanes.cli.bank;

import dev.lanes.cli.report.Report;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Checks a finished bank run against its event store: versions 1..n per account, each client's commands stored in the
 * order it sent them, every processor saw each account's streams in version order, the projection equals a replay of
 * the store, every command the clients were told succeeded is stored exactly once and no refused one is, every transfer
 * was credited or refunded once, and the money adds up.
 */
final class BankAudit {
    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(30);
    private static final String TRANSFER = "transfer:";

    /**
     * What the audit found.
     *
     * @param invariants in the order they were checked
     * @param orderingViolations client order, processor order, projection gaps and version gaps together
     * @param lost commands never answered, and acknowledged ones missing from the store
     * @param parked messages parked by the command side and the event side
     * @param notes remarks for the report
     */
    record Findings(
            List<Report.Invariant> invariants, long orderingViolations, long lost, long parked, List<String> notes) {
        Findings {
            invariants = List.copyOf(invariants);
            notes = List.copyOf(notes);
        }
    }

    private final BankWiring bank;
    private final Ledger ledger;
    /** Client references found in the store, with how often. */
    private final Map<String, Integer> stored = new HashMap<>();
    /** Credits and refunds the saga stored, by transfer reference. */
    private final Map<String, Settlement> settlements = new HashMap<>();

    private int accounts;
    private long versions;
    private long gappedAccounts;
    private long clientOrderViolations;
    private long storeTotal;
    private long projectionMismatches;
    private long projectionGaps;
    private long sagaCommands;

    private BankAudit(BankWiring bank, Ledger ledger) {
        this.bank = bank;
        this.ledger = ledger;
    }

    /** Reads every account's streams from the store and checks them against the ledger and the processors. */
    static Findings verify(BankWiring bank, List<String> accounts, long initialTotal, Ledger ledger) {
        BankAudit audit = new BankAudit(bank, ledger);
        accounts.forEach(audit::account);
        return audit.findings(initialTotal);
    }

    private void account(String id) {
        List<DomainEventStream> streams = Objects.requireNonNull(
                bank.store.load(Bank.account(id), 1).collectList().block(LOAD_TIMEOUT), "streams");
        long balance = replay(streams);
        accounts++;
        versions += streams.size();
        storeTotal += balance;
        if (bank.eventSide) {
            compareWithProjection(id, streams.size(), balance);
        }
    }

    /** The balance the streams add up to; notes a version gap and the client references on the way. */
    private long replay(List<DomainEventStream> streams) {
        long balance = 0;
        Map<String, Long> lastSequenceByClient = new HashMap<>();
        for (int i = 0; i < streams.size(); i++) {
            if (streams.get(i).version() != i + 1) {
                gappedAccounts++;
                break;
            }
            for (Object event : streams.get(i).payloads()) {
                balance += apply(event, lastSequenceByClient);
            }
        }
        return balance;
    }

    private long apply(Object event, Map<String, Long> lastSequenceByClient) {
        if (event instanceof Deposited deposited) {
            reference(deposited.reference(), deposited.amount(), lastSequenceByClient);
            return deposited.amount();
        }
        if (event instanceof Withdrawn withdrawn) {
            reference(withdrawn.reference(), withdrawn.amount(), lastSequenceByClient);
            return -withdrawn.amount();
        }
        return 0;
    }

    private void compareWithProjection(String id, int streams, long balance) {
        BalanceProjection.Row row = bank.balances.rows().get(id);
        boolean matches = row == null ? streams == 0 : row.balance() == balance && row.version() == streams;
        projectionMismatches += matches ? 0 : 1;
        projectionGaps += row == null ? 0 : row.gaps();
    }

    /**
     * Client commands: {@code c<client>.<n>}, or {@code transfer:c<client>.<n>:<target>} for a transfer's debit; the
     * saga's {@code credit:<transfer>} and {@code refund:<transfer>}; the opening deposits have none of these forms.
     */
    private void reference(String reference, long amount, Map<String, Long> lastSequenceByClient) {
        if (reference.startsWith("credit:") || reference.startsWith("refund:")) {
            settle(reference, amount);
        } else if (reference.startsWith(TRANSFER)) {
            clientCommand(reference.substring(TRANSFER.length(), reference.lastIndexOf(':')), lastSequenceByClient);
        } else {
            clientCommand(reference, lastSequenceByClient);
        }
    }

    private void settle(String reference, long amount) {
        String transfer = reference.substring(reference.indexOf(':') + 1);
        settlements.computeIfAbsent(transfer, t -> new Settlement()).add(amount, reference.startsWith("refund:"));
        sagaCommands++;
    }

    private void clientCommand(String client, Map<String, Long> lastSequenceByClient) {
        int dot = client.indexOf('.');
        if (!client.startsWith("c") || dot < 0) {
            return; // opening deposits
        }
        stored.merge(client, 1, Integer::sum);
        long sequence = Long.parseLong(client.substring(dot + 1));
        Long previous = lastSequenceByClient.put(client.substring(0, dot), sequence);
        if (previous != null && previous >= sequence) {
            clientOrderViolations++;
        }
    }

    private Findings findings(long initialTotal) {
        Tally tally = tally();
        long parked = bank.parked();
        long auditViolations = !bank.eventSide ? 0 : bank.audit.violations();
        List<Report.Invariant> invariants = new ArrayList<>();
        invariants.add(everyCommandAnswered(tally));
        invariants.add(nothingLost(tally, parked));
        invariants.add(versionsGapless());
        invariants.add(perAccountOrder(auditViolations));
        if (bank.eventSide) {
            invariants.add(projectionEqualsReplay());
        }
        invariants.add(moneyConserved(tally, initialTotal));
        long ordering = clientOrderViolations + auditViolations + projectionGaps + gappedAccounts;
        return new Findings(invariants, ordering, tally.unanswered + tally.missing, parked, notes());
    }

    private Tally tally() {
        Tally tally = new Tally();
        for (Ledger.Entry entry : ledger.entries()) {
            tally.add(entry, stored.getOrDefault(entry.reference, 0), settlements.get(entry.reference));
        }
        return tally;
    }

    private Report.Invariant everyCommandAnswered(Tally tally) {
        int inFlight = bank.inFlight();
        Map<Ledger.Answer, Long> answers = ledger.counts();
        String detail = String.format(
                Locale.ROOT,
                "%,d of %,d answered (ok %,d, refused by bank rules %,d, rejected %,d%s); %d still in flight",
                ledger.sent() - tally.unanswered,
                ledger.sent(),
                answers.get(Ledger.Answer.OK),
                answers.get(Ledger.Answer.REFUSED),
                answers.get(Ledger.Answer.REJECTED),
                cutShort(answers),
                inFlight);
        return new Report.Invariant("every command answered", tally.unanswered == 0 && inFlight == 0, detail);
    }

    /** The answers of waits that a stop or a timeout ended before their stage, if any. */
    private static String cutShort(Map<Ledger.Answer, Long> answers) {
        long stored = answers.getOrDefault(Ledger.Answer.STORED, 0L);
        long unknown = answers.getOrDefault(Ledger.Answer.UNKNOWN, 0L);
        return stored + unknown == 0
                ? ""
                : String.format(
                        Locale.ROOT, "; cut short: %,d stored, %,d not known (audited in the store)", stored, unknown);
    }

    private Report.Invariant nothingLost(Tally tally, long parked) {
        long unknown = stored.keySet().stream()
                .filter(reference -> ledger.get(reference) == null)
                .count();
        String detail = String.format(
                Locale.ROOT,
                "every acknowledged command stored once: %,d missing, %,d duplicated; %,d refused but stored,"
                        + " %,d unknown in the store, %,d parked",
                tally.missing,
                tally.duplicated,
                tally.storedThoughRefused,
                unknown,
                parked);
        long wrong = tally.missing + tally.duplicated + tally.storedThoughRefused + unknown + parked;
        return new Report.Invariant("nothing lost", wrong == 0, detail);
    }

    private Report.Invariant versionsGapless() {
        String detail = String.format(
                Locale.ROOT,
                "%,d accounts, %,d versions in the store, 1..n each (%,d with a gap)",
                accounts,
                versions,
                gappedAccounts);
        return new Report.Invariant("versions gapless", gappedAccounts == 0, detail);
    }

    private Report.Invariant perAccountOrder(long auditViolations) {
        String detail = String.format(
                Locale.ROOT, "each client's commands stored in send order (%,d violations)", clientOrderViolations);
        if (bank.eventSide) {
            detail += String.format(
                    Locale.ROOT,
                    "; %,d streams audited in version order (%,d violations, %,d projection gaps)",
                    bank.audit.streams(),
                    auditViolations,
                    projectionGaps);
        }
        boolean passed = clientOrderViolations + auditViolations + projectionGaps == 0;
        return new Report.Invariant("per-account order", passed, detail);
    }

    private Report.Invariant projectionEqualsReplay() {
        String detail = String.format(
                Locale.ROOT,
                "balance and version of %,d accounts equal a replay of the store (%,d differ)",
                accounts,
                projectionMismatches);
        return new Report.Invariant("projection = replay", projectionMismatches == 0, detail);
    }

    private Report.Invariant moneyConserved(Tally tally, long initialTotal) {
        long expected = initialTotal + tally.deposits - tally.withdrawals;
        long projectionTotal = !bank.eventSide ? expected : bank.balances.totalBalance();
        String books = String.format(
                Locale.ROOT,
                "expected %,d = opening %,d + deposits %,d - withdrawals %,d; store %,d",
                expected,
                initialTotal,
                tally.deposits,
                tally.withdrawals,
                storeTotal);
        if (bank.eventSide) {
            books += sagaBooks(tally, projectionTotal);
        }
        boolean adds = storeTotal == expected && projectionTotal == expected && tally.unsettledTransfers == 0;
        return new Report.Invariant("money conserved", adds, books);
    }

    private static String sagaBooks(Tally tally, long projectionTotal) {
        return String.format(
                Locale.ROOT,
                "; projection %,d; %,d transfers settled once by the saga (%,d refunded, %,d not settled)",
                projectionTotal,
                tally.transfers - tally.unsettledTransfers,
                tally.refunds,
                tally.unsettledTransfers);
    }

    private List<String> notes() {
        if (sagaCommands == 0) {
            return List.of();
        }
        return List.of(String.format(
                Locale.ROOT, "the transfer saga sent %,d commands of its own (credits and refunds)", sagaCommands));
    }

    /** What the saga stored for one transfer: credits or refunds, their amount, and how many were refunds. */
    private static final class Settlement {
        long commands;
        long amount;
        long refunds;

        void add(long amount, boolean refund) {
            this.commands++;
            this.amount += amount;
            this.refunds += refund ? 1 : 0;
        }

        boolean settledOnce(long transferred) {
            return commands == 1 && amount == transferred;
        }
    }

    /** The ledger's entries held against the store. */
    private static final class Tally {
        long missing;
        long duplicated;
        long storedThoughRefused;
        long unanswered;
        long deposits;
        long withdrawals;
        long transfers;
        long unsettledTransfers;
        long refunds;

        /** A command that was acknowledged, stored after a cut-short wait, or found in the store, counts as done. */
        void add(Ledger.Entry entry, int found, @Nullable Settlement settlement) {
            if (entry.answer == Ledger.Answer.PENDING) {
                unanswered++;
            } else if (done(entry.answer, found)) {
                missing += found == 0 ? 1 : 0;
                duplicated += found > 1 ? 1 : 0;
                book(entry, settlement);
            } else {
                storedThoughRefused += found > 0 ? 1 : 0;
            }
        }

        private static boolean done(Ledger.Answer answer, int found) {
            return answer == Ledger.Answer.OK
                    || answer == Ledger.Answer.STORED
                    || (answer == Ledger.Answer.UNKNOWN && found > 0);
        }

        private void book(Ledger.Entry entry, @Nullable Settlement settlement) {
            switch (entry.kind) {
                case DEPOSIT -> deposits += entry.amount;
                case WITHDRAWAL -> withdrawals += entry.amount;
                case TRANSFER -> {
                    transfers++;
                    boolean settled = settlement != null && settlement.settledOnce(entry.amount);
                    unsettledTransfers += settled ? 0 : 1;
                    refunds += settlement == null ? 0 : settlement.refunds;
                }
            }
        }
    }
}
