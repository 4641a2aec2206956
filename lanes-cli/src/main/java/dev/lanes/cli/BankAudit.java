package dev.lanes.cli;

import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Checks a finished bank run against its event store: versions 1..n per account, each client's commands stored in the
 * order it sent them, every processor saw each account's streams in version order, the projection equals a replay of
 * the store, every command the clients were told succeeded is stored exactly once and no refused one is, every transfer
 * was credited or refunded once, and the money adds up.
 */
final class BankAudit {
    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(30);

    private final BankWiring bank;
    private final Ledger ledger;
    /** Client references found in the store, with how often. */
    private final Map<String, Integer> stored = new HashMap<>();
    /** Transfer id to {credits or refunds, their amount, refunds}. */
    private final Map<String, long[]> settlements = new HashMap<>();

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

    /** Adds the invariants and the derived counts to {@code report}. */
    static void verify(BankWiring bank, List<String> accounts, long initialTotal, Ledger ledger, Report report) {
        BankAudit audit = new BankAudit(bank, ledger);
        for (String account : accounts) {
            audit.account(account);
        }
        audit.conclude(accounts.size(), initialTotal, report);
    }

    private void account(String id) {
        List<DomainEventStream> streams = Objects.requireNonNull(
                bank.store.load(Bank.account(id), 1).collectList().block(LOAD_TIMEOUT), "streams");
        long balance = 0;
        Map<String, Long> lastSequenceByClient = new HashMap<>();
        for (int i = 0; i < streams.size(); i++) {
            DomainEventStream stream = streams.get(i);
            if (stream.version() != i + 1) {
                gappedAccounts++;
                break;
            }
            for (Object event : stream.payloads()) {
                if (event instanceof Deposited deposited) {
                    balance += deposited.amount();
                    reference(deposited.reference(), deposited.amount(), lastSequenceByClient);
                } else if (event instanceof Withdrawn withdrawn) {
                    balance -= withdrawn.amount();
                    reference(withdrawn.reference(), withdrawn.amount(), lastSequenceByClient);
                }
            }
        }
        versions += streams.size();
        storeTotal += balance;
        if (bank.events != null) {
            BalanceProjection.Row row = bank.balances.rows().get(id);
            boolean matches =
                    row == null ? streams.isEmpty() : row.balance() == balance && row.version() == streams.size();
            projectionMismatches += matches ? 0 : 1;
            projectionGaps += row == null ? 0 : row.gaps();
        }
    }

    /** Client commands: {@code c<client>.<n>}, or {@code transfer:c<client>.<n>:<target>} for a transfer's debit. */
    private void reference(String reference, long amount, Map<String, Long> lastSequenceByClient) {
        String client = reference;
        if (reference.startsWith("transfer:")) {
            client = reference.substring("transfer:".length(), reference.lastIndexOf(':'));
        } else if (reference.startsWith("credit:") || reference.startsWith("refund:")) {
            String transfer = reference.substring(reference.indexOf(':') + 1);
            long[] settled = settlements.computeIfAbsent(transfer, t -> new long[3]);
            settled[0]++;
            settled[1] += amount;
            settled[2] += reference.startsWith("refund:") ? 1 : 0;
            sagaCommands++;
            return;
        }
        int dot = client.indexOf('.');
        if (!client.startsWith("c") || dot < 0) {
            return; // opening deposits
        }
        stored.merge(client, 1, Integer::sum);
        String clientId = client.substring(0, dot);
        long sequence = Long.parseLong(client.substring(dot + 1));
        Long previous = lastSequenceByClient.put(clientId, sequence);
        if (previous != null && previous >= sequence) {
            clientOrderViolations++;
        }
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

    private void conclude(int accounts, long initialTotal, Report report) {
        long missing = 0;
        long duplicated = 0;
        long storedThoughRefused = 0;
        long unanswered = 0;
        long deposits = 0;
        long withdrawals = 0;
        long transfers = 0;
        long unsettledTransfers = 0;
        long refunds = 0;
        for (Ledger.Entry entry : ledger.entries()) {
            int found = stored.getOrDefault(entry.reference, 0);
            if (entry.answer == Ledger.Answer.PENDING) {
                unanswered++;
            } else if (entry.answer == Ledger.Answer.OK
                    || entry.answer == Ledger.Answer.STORED
                    || (entry.answer == Ledger.Answer.UNKNOWN && found > 0)) {
                missing += found == 0 ? 1 : 0;
                duplicated += found > 1 ? 1 : 0;
                switch (entry.kind) {
                    case DEPOSIT -> deposits += entry.amount;
                    case WITHDRAWAL -> withdrawals += entry.amount;
                    case TRANSFER -> {
                        transfers++;
                        long[] settled = settlements.getOrDefault(entry.reference, new long[3]);
                        unsettledTransfers += settled[0] == 1 && settled[1] == entry.amount ? 0 : 1;
                        refunds += settled[2];
                    }
                }
            } else {
                storedThoughRefused += found > 0 ? 1 : 0;
            }
        }
        long unknown = stored.keySet().stream()
                .filter(reference -> ledger.get(reference) == null)
                .count();
        long parked = bank.parked();
        long expected = initialTotal + deposits - withdrawals;
        long projectionTotal = bank.events == null ? expected : bank.balances.totalBalance();
        int inFlight = bank.results.inFlight();
        Map<Ledger.Answer, Long> answers = ledger.counts();

        report.check(
                "every command answered",
                unanswered == 0 && inFlight == 0,
                String.format(
                        Locale.ROOT,
                        "%,d of %,d answered (ok %,d, refused by bank rules %,d, rejected %,d%s); %d still in flight",
                        ledger.sent() - unanswered,
                        ledger.sent(),
                        answers.get(Ledger.Answer.OK),
                        answers.get(Ledger.Answer.REFUSED),
                        answers.get(Ledger.Answer.REJECTED),
                        cutShort(answers),
                        inFlight));
        report.check(
                "nothing lost",
                missing + duplicated + storedThoughRefused + unknown + parked == 0,
                String.format(
                        Locale.ROOT,
                        "every acknowledged command stored once: %,d missing, %,d duplicated; %,d refused but stored,"
                                + " %,d unknown in the store, %,d parked",
                        missing,
                        duplicated,
                        storedThoughRefused,
                        unknown,
                        parked));
        report.check(
                "versions gapless",
                gappedAccounts == 0,
                String.format(
                        Locale.ROOT,
                        "%,d accounts, %,d versions in the store, 1..n each (%,d with a gap)",
                        accounts,
                        versions,
                        gappedAccounts));
        long auditViolations = bank.events == null ? 0 : bank.audit.violations();
        report.check(
                "per-account order",
                clientOrderViolations + auditViolations + projectionGaps == 0,
                String.format(
                        Locale.ROOT,
                        "each client's commands stored in send order (%,d violations)%s",
                        clientOrderViolations,
                        bank.events == null
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        "; %,d streams audited in version order (%,d violations, %,d projection gaps)",
                                        bank.audit.streams(),
                                        auditViolations,
                                        projectionGaps)));
        if (bank.events != null) {
            report.check(
                    "projection = replay",
                    projectionMismatches == 0,
                    String.format(
                            Locale.ROOT,
                            "balance and version of %,d accounts equal a replay of the store (%,d differ)",
                            accounts,
                            projectionMismatches));
        }
        boolean moneyAddsUp = storeTotal == expected && projectionTotal == expected && unsettledTransfers == 0;
        String books = String.format(
                Locale.ROOT,
                "expected %,d = opening %,d + deposits %,d - withdrawals %,d; store %,d",
                expected,
                initialTotal,
                deposits,
                withdrawals,
                storeTotal);
        if (bank.events != null) {
            books += String.format(
                    Locale.ROOT,
                    "; projection %,d; %,d transfers settled once by the saga (%,d refunded, %,d not settled)",
                    projectionTotal,
                    transfers - unsettledTransfers,
                    refunds,
                    unsettledTransfers);
        }
        report.check("money conserved", moneyAddsUp, books);
        report.orderingViolations = clientOrderViolations + auditViolations + projectionGaps + gappedAccounts;
        report.lost = unanswered + missing;
        report.parked = parked;
        if (sagaCommands > 0) {
            report.notes.add(String.format(
                    Locale.ROOT, "the transfer saga sent %,d commands of its own (credits and refunds)", sagaCommands));
        }
    }
}
