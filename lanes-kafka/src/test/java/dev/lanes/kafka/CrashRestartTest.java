package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.testsupport.TestKafka;
import dev.lanes.testsupport.TestPostgres;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A {@code kill -9} in the middle of load. Two instances of {@link CrashInstance}, each a JVM of its own, share this
 * JVM's PostgreSQL and Kafka broker; each sends credits to 200 accounts from 12 clients and journals every command
 * answered {@code PROCESSED}. Instance b (which opened the accounts and holds the tracking processor's claim) is killed
 * with SIGKILL while its clients and lanes have commands in flight, then started again under the same name; both run on,
 * the commands nobody answered are sent again with their request ids, and both stop gracefully. Then, read from the
 * database directly: every acknowledged command is stored once, at the version it was acknowledged with; no request
 * id is stored twice; every account's versions are gapless; a client's commands to one account are stored in the order
 * it sent them; and both projections (one on the Kafka bus, one a tracking processor over the store) equal a replay of
 * the store, with no gap seen on the way.
 *
 * <p>Run it with {@code mvn -B verify -Pcrash -pl lanes-kafka -am} (tag {@code crash}, not in the default build).
 * The instances' journals and output stay under {@code target/crash/<run>/}.
 */
@Tag("crash")
class CrashRestartTest {
    private static final int PARTITIONS = 6;
    private static final int ACCOUNTS = 200;
    private static final int CLIENTS = 12;
    /** Acknowledged commands an instance's clients reach before the next step. */
    private static final int ACKS_PER_STEP = 400;
    /** Acknowledged commands sent again, to check that they are answered from the store. */
    private static final int ACKED_RESENT = 100;

    private static final Duration STEP = Duration.ofSeconds(120);
    /** How long the projections may take to catch up once the load stopped (a few seconds, normally). */
    private static final Duration CONVERGENCE = Duration.ofSeconds(60);
    /** SIGKILL: the exit status of a JVM killed by it. */
    private static final int KILLED = 128 + 9;

    private static final String CREDITED = Ledger.Credited.class.getName();
    private static final String DEBITED = Ledger.Debited.class.getName();
    private static final String OPENED = Ledger.Opened.class.getName();

    private final String run = "crash" + UUID.randomUUID().toString().substring(0, 8);
    private final Path directory = Path.of("target", "crash", run).toAbsolutePath();
    private final String database = InstanceDatabases.fresh();
    private final String kafka = TestKafka.bootstrapServers();
    private final List<Child> children = new ArrayList<>();

    @AfterEach
    void killWhatIsLeft() throws InterruptedException {
        for (Child child : children) {
            child.process.destroyForcibly();
            child.process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aKilledInstanceLosesNoAcknowledgedCommandReordersNoStreamAndItsProjectionsConvergeToAReplay()
            throws Exception {
        try {
            crashAndRestart();
        } catch (Throwable failure) {
            children.forEach(Child::printOutput);
            throw failure;
        }
    }

    private void crashAndRestart() throws Exception {
        Files.createDirectories(directory);
        try (Connection connection = connect()) {
            CrashProjection.createTables(connection);
        }
        Child b = launch("b", 1, true); // opens the accounts first, and so takes the tracking processor's claim
        b.awaitLine("READY");
        Child a = launch("a", 1, false);
        a.awaitLine("READY");
        assertThat(claimOwner())
                .as("the tracking processor's claim, before the kill")
                .isEqualTo("b");

        a.command("LOAD");
        b.command("LOAD");
        b.awaitCredits(ACKS_PER_STEP);
        int creditedByABeforeTheKill = a.journal().credits();

        b.process.destroyForcibly();
        assertThat(b.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(b.process.exitValue())
                .as("b's exit status: killed by SIGKILL")
                .isEqualTo(KILLED);
        Journal killed = b.journal();
        assertThat(killed.inFlight())
                .as("commands b's clients had sent and not seen answered when it was killed")
                .isNotEmpty();
        assertThat(killed.owned())
                .as("the partitions b owned when it was killed: commands and events")
                .matches("commands=\\d[\\d,]* events=\\d[\\d,]*");

        Child restarted = launch("b", 2, false);
        restarted.awaitLine("READY");
        restarted.command("LOAD");
        restarted.awaitCredits(ACKS_PER_STEP);
        a.awaitCredits(creditedByABeforeTheKill + ACKS_PER_STEP);
        a.command("STOP_LOAD");
        restarted.command("STOP_LOAD");
        a.awaitLine("IDLE");
        restarted.awaitLine("IDLE");

        List<Journal> journals = List.of(a.journal(), killed, restarted.journal());
        Map<String, Sent> sent = new LinkedHashMap<>();
        Map<String, Ack> acked = new LinkedHashMap<>();
        for (Journal journal : journals) {
            sent.putAll(journal.sent());
            journal.acks().forEach(ack -> acked.put(ack.requestId(), ack));
        }
        // what nobody answered is sent again with its request id, as the gateway's contract says, and some
        // acknowledged commands too: those must be answered from the store, at the version acknowledged
        List<Sent> resent = new ArrayList<>();
        sent.values().stream().filter(s -> !acked.containsKey(s.requestId())).forEach(resent::add);
        int unanswered = resent.size();
        acked.values().stream()
                .filter(ack -> ack.requestId().hashCode() % 7 == 0)
                .limit(ACKED_RESENT)
                .forEach(ack -> resent.add(sent.get(ack.requestId())));
        Set<String> storedBeforeTheResend = new HashSet<>();
        readStore().forEach(stream -> storedBeforeTheResend.add(stream.requestId()));
        long unansweredButStored = resent.stream()
                .limit(unanswered)
                .filter(s -> storedBeforeTheResend.contains(s.requestId()))
                .count();
        Path resendFile = directory.resolve("resend.txt");
        Files.write(resendFile, resent.stream().map(Sent::line).toList());
        a.command("RESEND " + resendFile);
        a.awaitLine("RESEND_DONE");
        Map<String, Integer> answeredAgain = a.journal().resent();
        assertThat(answeredAgain.keySet())
                .as("commands sent again, all answered PROCESSED")
                .containsExactlyInAnyOrderElementsOf(
                        resent.stream().map(Sent::requestId).toList());
        for (Sent again : resent) {
            Ack ack = acked.get(again.requestId());
            if (ack != null) {
                assertThat(answeredAgain.get(again.requestId()))
                        .as("%s sent again: answered at the version first acknowledged", again.requestId())
                        .isEqualTo(ack.version());
            }
        }

        List<Stored> store = readStore();
        checkStore(store, sent, acked);
        Map<String, CrashProjection.Row> replay = replay(store);
        // a gap cannot heal: with one, the wait runs out and lists it
        await().atMost(CONVERGENCE)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(projectionFaults(replay))
                        .as("gaps the projections saw, and accounts where a projection differs from a replay of the"
                                + " store")
                        .isEmpty());
        a.command("STOP");
        restarted.command("STOP");
        assertThat(a.awaitExit()).as("a's exit status after a graceful stop").isZero();
        assertThat(restarted.awaitExit())
                .as("the restarted b's exit status after a graceful stop")
                .isZero();

        assertThat(readStore()).as("the store after the stop").isEqualTo(store);
        assertThat(projectionFaults(replay))
                .as("gaps the projections saw, and accounts where a projection differs from a replay of the store,"
                        + " after the stop")
                .isEmpty();
        try (Connection connection = connect()) {
            assertThat(count(connection, "SELECT count(*) FROM lanes_dead_letters"))
                    .as("streams parked")
                    .isZero();
        }
        System.out.printf(
                "crash run %s: sent %d commands, acknowledged %d (%d by the killed b, which owned %s and had %d"
                        + " sends in flight at the kill), unanswered and sent again %d (%d of them stored already),"
                        + " acknowledged and sent again %d, stored %d streams over %d accounts (no request id twice, no"
                        + " version gap, no gap in a projection); streams seen again by a's projections: %s,"
                        + " by the restarted b's: %s; sends of a and of the restarted b that ended unanswered: %d%n",
                run,
                sent.size(),
                acked.size(),
                killed.acks().size(),
                killed.owned(),
                killed.inFlight().size(),
                unanswered,
                unansweredButStored,
                resent.size() - unanswered,
                store.size(),
                replay.size(),
                a.journal().redelivered(),
                restarted.journal().redelivered(),
                a.journal().errors() + restarted.journal().errors());
    }

    /** Every check that reads the store, with what is wrong listed in full. */
    private static void checkStore(List<Stored> store, Map<String, Sent> sent, Map<String, Ack> acked) {
        Map<String, List<Stored>> byRequest = new HashMap<>();
        store.forEach(s ->
                byRequest.computeIfAbsent(s.requestId(), r -> new ArrayList<>()).add(s));
        assertThat(byRequest.entrySet().stream()
                        .filter(e -> e.getValue().size() > 1)
                        .map(e -> e.getKey() + " " + e.getValue())
                        .toList())
                .as("request ids stored more than once")
                .isEmpty();
        List<String> gaps = new ArrayList<>();
        Map<String, Integer> last = new HashMap<>();
        for (Stored stream : store) {
            int expected = last.getOrDefault(stream.account(), 0) + 1;
            if (stream.version() != expected) {
                gaps.add(stream.account() + ": v" + stream.version() + " where v" + expected + " was next");
            }
            last.put(stream.account(), stream.version());
        }
        assertThat(gaps).as("version gaps").isEmpty();
        assertThat(last).as("accounts stored").hasSize(ACCOUNTS);
        assertThat(store.stream().filter(s -> s.version() == 1))
                .as("each account's first stream: its opening")
                .allSatisfy(s -> {
                    assertThat(s.types()).isEqualTo(OPENED);
                    assertThat(s.requestId()).isEqualTo("open-" + s.account().substring("acc-".length()));
                });

        List<String> lost = new ArrayList<>();
        for (Ack ack : acked.values()) {
            List<Stored> found = byRequest.getOrDefault(ack.requestId(), List.of());
            Stored stored = found.isEmpty() ? null : found.get(0);
            if (stored == null
                    || !stored.account().equals(ack.account())
                    || stored.version() != ack.version()
                    || stored.effect() != ack.amount()) {
                lost.add(ack + " stored as " + stored);
            }
        }
        assertThat(lost)
                .as("acknowledged commands not stored as acknowledged (of %d)", acked.size())
                .isEmpty();
        assertThat(sent.keySet().stream().filter(id -> !byRequest.containsKey(id)))
                .as("commands sent (and sent again until answered) but not stored")
                .isEmpty();
        assertThat(byRequest.keySet().stream().filter(id -> !sent.containsKey(id)))
                .as("streams stored for no command sent")
                .isEmpty();

        // one client sends one command at a time: its commands to one account are stored in the order it sent them
        Map<String, List<Ack>> byClientAndAccount = new HashMap<>();
        acked.values().stream()
                .filter(ack -> ack.kind().equals(CrashInstance.CREDIT))
                .forEach(ack -> byClientAndAccount
                        .computeIfAbsent(ack.client() + " " + ack.account(), k -> new ArrayList<>())
                        .add(ack));
        List<String> reordered = new ArrayList<>();
        for (List<Ack> acks : byClientAndAccount.values()) {
            acks.sort((x, y) -> Integer.compare(x.seq(), y.seq()));
            for (int i = 1; i < acks.size(); i++) {
                if (acks.get(i).version() <= acks.get(i - 1).version()) {
                    reordered.add(acks.get(i - 1) + " then " + acks.get(i));
                }
            }
        }
        assertThat(reordered)
                .as("a client's commands stored out of the order it sent them")
                .isEmpty();
    }

    /** The gaps both projections recorded, then every account where one of them differs from {@code replay}. */
    private List<String> projectionFaults(Map<String, CrashProjection.Row> replay) throws SQLException {
        try (Connection connection = connect()) {
            List<String> faults = new ArrayList<>(CrashProjection.violations(connection));
            for (String projection : List.of(CrashInstance.BALANCES, CrashInstance.TRACKED)) {
                Map<String, CrashProjection.Row> rows = CrashProjection.read(connection, projection);
                Set<String> accounts = new TreeSet<>(replay.keySet());
                accounts.addAll(rows.keySet());
                for (String account : accounts) {
                    if (!Objects.equals(rows.get(account), replay.get(account))) {
                        faults.add(projection + " " + account + ": " + rows.get(account) + ", the replay "
                                + replay.get(account));
                    }
                }
            }
            return faults;
        }
    }

    /** Each account's last version and balance, from the store's streams in version order. */
    private static Map<String, CrashProjection.Row> replay(List<Stored> store) {
        Map<String, CrashProjection.Row> replay = new TreeMap<>();
        for (Stored stream : store) {
            CrashProjection.Row row = replay.getOrDefault(stream.account(), new CrashProjection.Row(0, 0));
            replay.put(stream.account(), new CrashProjection.Row(stream.version(), row.balance() + stream.effect()));
        }
        return replay;
    }

    /** Every stream of the ledger, by account and version, read with plain SQL. */
    private List<Stored> readStore() throws SQLException {
        List<Stored> store = new ArrayList<>();
        String sql = "SELECT s.aggregate_id, s.version, s.request_id,"
                + " (SELECT coalesce(sum(CASE e->>'type' WHEN ? THEN (e->'payload'->>'amount')::bigint"
                + "   WHEN ? THEN -(e->'payload'->>'amount')::bigint ELSE 0 END), 0)"
                + "  FROM jsonb_array_elements(s.events) e),"
                + " (SELECT string_agg(e->>'type', ',' ORDER BY (e->>'sequence')::int)"
                + "  FROM jsonb_array_elements(s.events) e)"
                + " FROM lanes_event_streams s WHERE s.context_name = ? AND s.aggregate_name = ?"
                + " ORDER BY s.aggregate_id, s.version";
        try (Connection connection = connect();
                PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, CREDITED);
            select.setString(2, DEBITED);
            select.setString(3, Ledger.ACCOUNT.contextName());
            select.setString(4, Ledger.ACCOUNT.aggregateName());
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    store.add(new Stored(
                            row.getString(1), row.getInt(2), row.getString(3), row.getLong(4), row.getString(5)));
                }
            }
            assertThat(count(connection, "SELECT count(*) FROM lanes_event_streams"))
                    .as("streams in the store, all of them the ledger's")
                    .isEqualTo(store.size());
        }
        return store;
    }

    private @Nullable String claimOwner() throws SQLException {
        try (Connection connection = connect();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT owner FROM lanes_tracking_checkpoints WHERE processor = ?")) {
            select.setString(1, CrashInstance.TRACKED);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(database, TestPostgres.USER, "");
    }

    private Child launch(String instance, int incarnation, boolean open) throws IOException {
        String name = instance + "-" + incarnation;
        Path journal = directory.resolve(name + ".journal");
        Path output = directory.resolve(name + ".out");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classPath,
                CrashInstance.class.getName(),
                "jdbc=" + database,
                "kafka=" + kafka,
                "run=" + run,
                "partitions=" + PARTITIONS,
                "instance=" + instance,
                "incarnation=" + incarnation,
                "journal=" + journal,
                "accounts=" + ACCOUNTS,
                "clients=" + CLIENTS,
                "open=" + open);
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        Child child = new Child(name, process, journal, output);
        children.add(child);
        return child;
    }

    /** An instance's JVM: its control input, its journal and its output. */
    private static final class Child {
        final String name;
        final Process process;
        final Path journal;
        final Path output;
        final Writer control;

        Child(String name, Process process, Path journal, Path output) {
            this.name = name;
            this.process = process;
            this.journal = journal;
            this.output = output;
            this.control = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        }

        void command(String line) throws IOException {
            control.write(line + "\n");
            control.flush();
        }

        Journal journal() {
            try {
                return new Journal(Files.exists(journal) ? Files.readAllLines(journal) : List.of());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void awaitLine(String word) {
            await().atMost(STEP).pollInterval(Duration.ofMillis(100)).until(() -> {
                assertThat(process.isAlive() || journal().has(word))
                        .as("%s ended (status %s) before %s", name, exitStatus(), word)
                        .isTrue();
                return journal().has(word);
            });
        }

        void awaitCredits(int credits) {
            await().atMost(STEP).pollInterval(Duration.ofMillis(100)).until(() -> {
                assertThat(process.isAlive()).as("%s is running", name).isTrue();
                return journal().credits() >= credits;
            });
        }

        int awaitExit() throws InterruptedException {
            assertThat(process.waitFor(STEP.toSeconds(), TimeUnit.SECONDS))
                    .as("%s ended", name)
                    .isTrue();
            return process.exitValue();
        }

        private String exitStatus() {
            return process.isAlive() ? "running" : String.valueOf(process.exitValue());
        }

        void printOutput() {
            try {
                System.out.printf("----- %s (status %s): journal tail -----%n", name, exitStatus());
                List<String> lines = journal().lines;
                lines.subList(Math.max(0, lines.size() - 30), lines.size()).forEach(System.out::println);
                System.out.printf("----- %s: output -----%n", name);
                if (Files.exists(output)) {
                    List<String> out = Files.readAllLines(output);
                    out.subList(Math.max(0, out.size() - 200), out.size()).forEach(System.out::println);
                }
                System.out.printf("----- end of %s -----%n", name);
            } catch (IOException e) {
                System.out.println("cannot read the output of " + name + ": " + e);
            }
        }
    }

    /** A command as sent: {@code id account kind amount}, the line the instance reads to send it again. */
    private record Sent(String requestId, String account, String kind, long amount) {
        String line() {
            return requestId + " " + account + " " + kind + " " + amount;
        }
    }

    /** A command answered {@code PROCESSED}, by client and sequence number. */
    private record Ack(
            String requestId, String account, String kind, long amount, int version, String client, int seq) {}

    /** A stream of the store: its account, version, request id, effect on the balance and event types. */
    private record Stored(String account, int version, String requestId, long effect, String types) {}

    /** An instance's journal as read now (a killed instance's: up to its last line). */
    private record Journal(List<String> lines) {
        Stream<String[]> words(String first) {
            return lines.stream().map(line -> line.split(" ")).filter(words -> words[0].equals(first));
        }

        boolean has(String first) {
            return words(first).findAny().isPresent();
        }

        Map<String, Sent> sent() {
            Map<String, Sent> sent = new LinkedHashMap<>();
            words("SENT").forEach(w -> sent.put(w[1], new Sent(w[1], w[2], w[3], Long.parseLong(w[4]))));
            return sent;
        }

        List<Ack> acks() {
            return words("ACK")
                    .map(w -> new Ack(
                            w[1],
                            w[2],
                            w[3],
                            Long.parseLong(w[4]),
                            Integer.parseInt(w[5]),
                            w[6],
                            Integer.parseInt(w[7])))
                    .toList();
        }

        /** Credits its clients sent and saw answered {@code PROCESSED}. */
        int credits() {
            return (int)
                    words("ACK").filter(w -> w[3].equals(CrashInstance.CREDIT)).count();
        }

        /** The partitions owned at the last line: {@code commands=0,2 events=0,2}. */
        String owned() {
            return words("OWNS")
                    .map(w -> w[1] + " " + w[2])
                    .reduce((first, second) -> second)
                    .orElse("none");
        }

        /** Sends that ended without an answer ({@code ERR}). */
        long errors() {
            return words("ERR").count();
        }

        /** Sent, and neither answered nor failed. */
        Set<String> inFlight() {
            Set<String> open = new LinkedHashSet<>(sent().keySet());
            words("ACK").forEach(w -> open.remove(w[1]));
            words("ERR").forEach(w -> open.remove(w[1]));
            return open;
        }

        Map<String, Integer> resent() {
            Map<String, Integer> resent = new HashMap<>();
            words("RESENT").forEach(w -> resent.put(w[1], Integer.parseInt(w[5])));
            return resent;
        }

        String redelivered() {
            return words("STOPPED").map(w -> w[1] + " " + w[2]).findFirst().orElse("?");
        }
    }
}
