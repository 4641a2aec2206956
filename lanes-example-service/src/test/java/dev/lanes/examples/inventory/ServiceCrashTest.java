package dev.lanes.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.examples.inventory.Http.Answer;
import dev.lanes.testsupport.TestPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A {@code kill -9} of the example service under HTTP load. The service ({@link InventoryApplication}, its main class
 * in a JVM of its own on this test's class path) runs on this JVM's embedded PostgreSQL; {@value #CLIENTS} client
 * threads here send commands to {@value #ITEMS} items, each with a fresh {@code Idempotency-Key}, waiting for {@code
 * PROCESSED}, and remember every key sent and every answer. Once an incarnation has answered {@value
 * #ANSWERS_BEFORE_KILL} commands 200, it is killed with {@link Process#destroyForcibly()} (SIGKILL, exit status 137)
 * while the clients wait for answers; then it starts again on the same database. {@value #KILLS} kills, then a last
 * incarnation. Each restart first checks that the stock projection (replayed from the store; the health is {@code UP}
 * once it has caught up) equals a replay of the store read with plain SQL, then sends again every command that got no
 * answer (or a 503) with its key and body, until answered; the last one also sends again {@value #ANSWERED_RESENT}
 * commands answered 200, which must be answered at the version first answered.
 *
 * <p>Then, from the database: no request id is stored twice; every item's versions are gapless from 1; every command
 * answered 200 is stored once, on its item, at the version answered, as the event it asked for; nothing is stored that
 * was not sent; every command sent was finally answered 200 (stored) or 422 (refused, not stored). {@code GET /stock}
 * equals a replay of the store, and a graceful stop (SIGTERM) leaves the store as it was.
 *
 * <p>Run it with {@code mvn -B verify -Pcrash -pl lanes-example-service -am} (tag {@code crash}, not in the default
 * build). The service's output stays under {@code target/crash/<run>/}.
 */
@Tag("crash")
class ServiceCrashTest {
    private static final int ITEMS = 40;
    private static final int CLIENTS = 8;
    private static final int KILLS = 3;
    /** Commands an incarnation answers 200 before it is killed. */
    private static final int ANSWERS_BEFORE_KILL = 1000;
    /** Commands answered 200 and sent again, to check that they are answered from the store. */
    private static final int ANSWERED_RESENT = 100;

    private static final Duration STEP = Duration.ofSeconds(120);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(40);
    /** SIGKILL: the exit status of a JVM killed by it. */
    private static final int KILLED = 128 + 9;

    private static final String RECEIVED = ItemEvent.Received.class.getName();
    private static final String RESERVED = ItemEvent.Reserved.class.getName();
    private static final String RELEASED = ItemEvent.Released.class.getName();

    private final String run = "svc" + UUID.randomUUID().toString().substring(0, 8);
    private final Path directory = Path.of("target", "crash", run).toAbsolutePath();
    private final String database = TestPostgres.emptyDatabase();
    private final List<Incarnation> incarnations = new ArrayList<>();
    /** Every command sent, by key. */
    private final Map<String, Sent> sent = new ConcurrentHashMap<>();
    /** The last answer to each key; none for a key whose send ended without one. */
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    /** Sends that ended without an answer while the service was not being killed: none expected. */
    private final List<String> unexpectedFailures = new ArrayList<>();

    @AfterEach
    void killWhatIsLeft() throws InterruptedException {
        for (Incarnation incarnation : incarnations) {
            incarnation.process.destroyForcibly();
            incarnation.process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aKilledServiceLosesNoAnsweredCommandStoresNoneTwiceAndItsProjectionEqualsAReplay() throws Exception {
        try {
            crashAndRestart();
        } catch (Throwable failure) {
            incarnations.forEach(Incarnation::printOutput);
            throw failure;
        }
    }

    private void crashAndRestart() throws Exception {
        Files.createDirectories(directory);
        long began = System.nanoTime();
        List<String> figures = new ArrayList<>();
        for (int round = 0; round <= KILLS; round++) {
            Incarnation service = launch(round);
            Duration started = service.awaitReady();
            Map<String, Stored> store = readStore();
            assertThat(stock(service))
                    .as("the stock projection of incarnation %d once healthy, against a replay of the store", round)
                    .isEqualTo(replay(store));
            List<String> unanswered = unanswered();
            long storedAlready = unanswered.stream().filter(store::containsKey).count();
            resend(service, unanswered);
            if (round == KILLS) {
                figures.add(String.format(
                        "incarnation %d: up in %.1f s, %d streams replayed, %d unanswered sent again (%d stored"
                                + " already)",
                        round, seconds(started), store.size(), unanswered.size(), storedAlready));
                finish(service, figures, began);
                return;
            }
            Load load = new Load(service, round);
            long loadStart = System.nanoTime();
            load.start();
            load.awaitAnswers(ANSWERS_BEFORE_KILL);
            load.killing.set(true);
            int answeredAtKill = load.answered.get();
            service.process.destroyForcibly();
            assertThat(service.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(service.process.exitValue())
                    .as("incarnation %d's exit status: killed by SIGKILL", round)
                    .isEqualTo(KILLED);
            long killedAfter = System.nanoTime() - loadStart;
            load.stop();
            List<String> cut = load.sentHere.stream()
                    .filter(key -> !answers.containsKey(key))
                    .toList();
            assertThat(cut)
                    .as("commands sent to incarnation %d and not answered when it was killed", round)
                    .isNotEmpty();
            figures.add(String.format(
                    "incarnation %d: up in %.1f s, %d streams replayed, %d unanswered sent again (%d stored already),"
                            + " %d sent under load, killed after %.1f s of load at %d answered 200 with %d in flight",
                    round,
                    seconds(started),
                    store.size(),
                    unanswered.size(),
                    storedAlready,
                    load.sentHere.size(),
                    killedAfter / 1e9,
                    answeredAtKill,
                    cut.size()));
        }
    }

    /** The last incarnation: answered commands sent again, every check, a graceful stop. */
    private void finish(Incarnation service, List<String> figures, long began) throws Exception {
        List<String> answeredBefore = answers.entrySet().stream()
                .filter(e -> e.getValue().status() == 200)
                .map(Map.Entry::getKey)
                .sorted()
                .filter(key -> Math.floorMod(key.hashCode(), 7) == 0)
                .limit(ANSWERED_RESENT)
                .toList();
        Map<String, Integer> versions = new HashMap<>();
        answeredBefore.forEach(key -> versions.put(key, answers.get(key).<Integer>read("$.version")));
        resend(service, answeredBefore);
        for (String key : answeredBefore) {
            Answer again = answers.get(key);
            assertThat(again.status())
                    .as("%s sent again: %s", key, again.body())
                    .isEqualTo(200);
            assertThat(again.<Integer>read("$.version"))
                    .as("%s sent again: answered at the version first answered", key)
                    .isEqualTo(versions.get(key));
        }
        assertThat(unexpectedFailures)
                .as("sends that ended without an answer while no kill was under way")
                .isEmpty();

        Map<String, Stored> store = readStore();
        checkStore(store);
        Map<String, Row> replay = replay(store);
        assertThat(stock(service))
                .as("GET /stock against a replay of the store")
                .isEqualTo(replay);

        service.process.destroy(); // SIGTERM: Spring's graceful stop, then Lanes'
        assertThat(service.process.waitFor(STEP.toSeconds(), TimeUnit.SECONDS))
                .as("the last incarnation stopped after SIGTERM")
                .isTrue();
        assertThat(service.log()).as("the last incarnation's output").contains("Lanes runtime shutdown: graceful");
        assertThat(readStore()).as("the store after the graceful stop").isEqualTo(store);

        Map<Integer, Long> statuses = answers.values().stream()
                .collect(Collectors.groupingBy(Answer::status, TreeMap::new, Collectors.counting()));
        System.out.printf(
                "service crash run %s: %d kills; %d commands sent, finally answered %s (status: count), %d answered"
                        + " 200 sent again and answered from the store; stored %d streams over %d items (no request id"
                        + " twice, no version gap, GET /stock equal to a replay after each restart and at the end);"
                        + " graceful stop exit status %d; %.1f s in all%n  %s%n",
                run,
                KILLS,
                sent.size(),
                statuses,
                answeredBefore.size(),
                store.size(),
                replay.size(),
                service.process.exitValue(),
                (System.nanoTime() - began) / 1e9,
                String.join("\n  ", figures));
    }

    /** Every check that reads the store, with what is wrong listed in full. */
    private void checkStore(Map<String, Stored> store) throws SQLException {
        assertThat(duplicateRequestIds())
                .as("request ids stored more than once")
                .isEmpty();
        List<String> gaps = new ArrayList<>();
        Map<String, Integer> last = new TreeMap<>();
        store.values().stream()
                .sorted((x, y) -> x.sku().equals(y.sku())
                        ? Integer.compare(x.version(), y.version())
                        : x.sku().compareTo(y.sku()))
                .forEach(stream -> {
                    int expected = last.getOrDefault(stream.sku(), 0) + 1;
                    if (stream.version() != expected) {
                        gaps.add(stream.sku() + ": v" + stream.version() + " where v" + expected + " was next");
                    }
                    last.put(stream.sku(), stream.version());
                });
        assertThat(gaps).as("version gaps").isEmpty();

        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, Sent> entry : sent.entrySet()) {
            String key = entry.getKey();
            Sent command = entry.getValue();
            Answer answer = answers.get(key);
            Stored stored = store.get(key);
            if (answer == null || (answer.status() != 200 && answer.status() != 422)) {
                wrong.add(key + " " + command + ": finally answered " + answer);
            } else if (answer.status() == 200) {
                int version = answer.<Integer>read("$.version");
                if (stored == null
                        || !stored.sku().equals(command.sku())
                        || stored.version() != version
                        || !stored.type().equals(command.event())
                        || stored.quantity() != command.quantity()) {
                    wrong.add(key + " " + command + " answered 200 at v" + version + ", stored as " + stored);
                }
            } else if (stored != null) {
                wrong.add(key + " " + command + " answered " + answer.body() + ", stored as " + stored);
            }
        }
        assertThat(wrong)
                .as("commands not stored as answered (of %d sent)", sent.size())
                .isEmpty();
        assertThat(store.keySet().stream().filter(key -> !sent.containsKey(key)))
                .as("streams stored for no command sent")
                .isEmpty();
    }

    /** The keys sent with no answer, or with a 503 (not stored, or not known to be): to be sent again. */
    private List<String> unanswered() {
        return sent.keySet().stream()
                .filter(key -> !answers.containsKey(key) || answers.get(key).status() == 503)
                .sorted()
                .toList();
    }

    /** Sends {@code keys} again with their bodies from {@value #CLIENTS} threads, each until it is answered. */
    private void resend(Incarnation service, List<String> keys) throws Exception {
        Http http = service.http();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> sends = new ArrayList<>();
            for (String key : keys) {
                Sent command = sent.get(key);
                sends.add(pool.submit(() -> {
                    for (int attempt = 1; ; attempt++) {
                        Answer answer = command.send(http, key);
                        answers.put(key, answer);
                        if (answer.status() != 503 || attempt == 20) {
                            return null;
                        }
                        Thread.sleep(250); // Retry-After asks for seconds; the lane is rarely full for long
                    }
                }));
            }
            for (Future<?> send : sends) {
                send.get(STEP.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The clients of one incarnation: each sends one command at a time until stopped or the service is gone. */
    private final class Load {
        final Incarnation service;
        final int round;
        final Http http;
        final AtomicBoolean loading = new AtomicBoolean(true);
        final AtomicBoolean killing = new AtomicBoolean();
        final AtomicInteger answered = new AtomicInteger();
        final Set<String> sentHere = ConcurrentHashMap.newKeySet();
        final List<Thread> clients = new ArrayList<>();

        Load(Incarnation service, int round) {
            this.service = service;
            this.round = round;
            this.http = service.http();
        }

        void start() {
            for (int client = 0; client < CLIENTS; client++) {
                int number = client;
                Thread thread = new Thread(() -> client(number), "client-" + round + "-" + client);
                clients.add(thread);
                thread.start();
            }
        }

        private void client(int client) {
            Random random = new Random(31L * round + client);
            for (int seq = 0; loading.get(); seq++) {
                String key = run + "-r" + round + "-c" + client + "-" + seq;
                Sent command = Sent.random(random);
                sent.put(key, command);
                sentHere.add(key);
                try {
                    Answer answer = command.send(http, key);
                    answers.put(key, answer);
                    if (answer.status() == 200) {
                        answered.incrementAndGet();
                    }
                } catch (IOException e) {
                    if (!killing.get()) {
                        synchronized (unexpectedFailures) {
                            unexpectedFailures.add(key + " " + command + ": " + e);
                        }
                    }
                    return; // the service is gone (or failing): this command stays unanswered
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }

        void awaitAnswers(int count) {
            await().atMost(STEP).pollInterval(Duration.ofMillis(20)).until(() -> {
                assertThat(service.process.isAlive())
                        .as("incarnation %d is running", round)
                        .isTrue();
                return answered.get() >= count;
            });
        }

        void stop() throws InterruptedException {
            loading.set(false);
            for (Thread client : clients) {
                client.join(REQUEST_TIMEOUT.toMillis() + 10_000);
                assertThat(client.isAlive()).as("%s ended", client.getName()).isFalse();
            }
        }
    }

    /** A command as sent: its item, its class's simple name and its quantity. */
    private record Sent(String sku, String command, long quantity) {
        static Sent random(Random random) {
            String sku = "sku-" + random.nextInt(ITEMS);
            int dice = random.nextInt(10);
            if (dice < 6) {
                return new Sent(sku, "Receive", 1 + random.nextInt(5));
            }
            return dice < 9
                    ? new Sent(sku, "Reserve", 1 + random.nextInt(4))
                    : new Sent(sku, "Release", 1 + random.nextInt(3));
        }

        Answer send(Http http, String key) throws IOException, InterruptedException {
            return http.command(sku, command, "{\"quantity\":" + quantity + "}", key, "PROCESSED");
        }

        /** The event it stores when accepted. */
        String event() {
            switch (command) {
                case "Receive":
                    return RECEIVED;
                case "Reserve":
                    return RESERVED;
                default:
                    return RELEASED;
            }
        }
    }

    /** A stream of the store: its item, version, its one event's type and quantity. */
    private record Stored(String sku, int version, String type, long quantity) {}

    /** One item's stock: what {@code GET /stock} answers, and what a replay of the store gives. */
    private record Row(long onHand, long reserved, long available, int version) {}

    /** Every stream of the store by request id, read with plain SQL (a request id stored twice: {@link #duplicateRequestIds}). */
    private Map<String, Stored> readStore() throws SQLException {
        Map<String, Stored> store = new HashMap<>();
        String sql = "SELECT s.request_id, s.aggregate_id, s.version, e->>'type', (e->'payload'->>'quantity')::bigint,"
                + " jsonb_array_length(s.events)"
                + " FROM lanes_event_streams s CROSS JOIN LATERAL jsonb_array_elements(s.events) e"
                + " WHERE s.context_name = ? AND s.aggregate_name = ?";
        try (Connection connection = connect();
                PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, Inventory.ITEM.contextName());
            select.setString(2, Inventory.ITEM.aggregateName());
            try (ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    assertThat(row.getInt(6))
                            .as("events in stream %s", row.getString(1))
                            .isOne();
                    store.put(
                            row.getString(1),
                            new Stored(row.getString(2), row.getInt(3), row.getString(4), row.getLong(5)));
                }
            }
        }
        return store;
    }

    private List<String> duplicateRequestIds() throws SQLException {
        List<String> duplicates = new ArrayList<>();
        try (Connection connection = connect();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT request_id, count(*) FROM lanes_event_streams GROUP BY request_id HAVING count(*) > 1");
                ResultSet row = select.executeQuery()) {
            while (row.next()) {
                duplicates.add(row.getString(1) + " x" + row.getLong(2));
            }
        }
        return duplicates;
    }

    /** Each item's stock, from its streams in version order. */
    private static Map<String, Row> replay(Map<String, Stored> store) {
        Map<String, Row> replay = new TreeMap<>();
        store.values().stream()
                .sorted((x, y) -> Integer.compare(x.version(), y.version()))
                .forEach(stream -> {
                    Row row = replay.getOrDefault(stream.sku(), new Row(0, 0, 0, 0));
                    long onHand = row.onHand() + (stream.type().equals(RECEIVED) ? stream.quantity() : 0);
                    long reserved = row.reserved()
                            + (stream.type().equals(RESERVED) ? stream.quantity() : 0)
                            - (stream.type().equals(RELEASED) ? stream.quantity() : 0);
                    replay.put(stream.sku(), new Row(onHand, reserved, onHand - reserved, stream.version()));
                });
        return replay;
    }

    /** {@code GET /stock} as rows by SKU. */
    private static Map<String, Row> stock(Incarnation service) throws Exception {
        Answer answer = service.http().get("/stock");
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        Map<String, Map<String, Number>> rows = answer.read("$");
        Map<String, Row> stock = new TreeMap<>();
        rows.forEach((sku, row) -> stock.put(
                sku,
                new Row(
                        row.get("onHand").longValue(),
                        row.get("reserved").longValue(),
                        row.get("available").longValue(),
                        row.get("version").intValue())));
        return stock;
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(database, TestPostgres.USER, "");
    }

    private Incarnation launch(int round) throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path output = directory.resolve("service-" + round + ".out");
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                classPath,
                InventoryApplication.class.getName(),
                "--spring.datasource.url=" + database,
                "--spring.datasource.username=" + TestPostgres.USER,
                "--server.port=" + port,
                "--logging.level.root=info");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        Incarnation incarnation = new Incarnation(round, process, port, output, System.nanoTime());
        incarnations.add(incarnation);
        return incarnation;
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }

    /** One run of the service's JVM: its port and output. */
    private record Incarnation(int round, Process process, int port, Path output, long launched) {
        Http http() {
            return new Http(port, REQUEST_TIMEOUT);
        }

        /** Waits for {@code /actuator/health} to answer 200 (the projection caught up); returns the time it took. */
        Duration awaitReady() {
            Http http = new Http(port, Duration.ofSeconds(5));
            await().atMost(STEP).pollInterval(Duration.ofMillis(200)).until(() -> {
                assertThat(process.isAlive())
                        .as("incarnation %d is running", round)
                        .isTrue();
                try {
                    return http.get("/actuator/health").status() == 200;
                } catch (IOException notYet) {
                    return false;
                }
            });
            return Duration.ofNanos(System.nanoTime() - launched);
        }

        String log() throws IOException {
            return Files.exists(output) ? Files.readString(output) : "";
        }

        void printOutput() {
            try {
                List<String> lines = Files.exists(output) ? Files.readAllLines(output) : List.of();
                System.out.printf(
                        "----- incarnation %d (%s): output -----%n",
                        round, process.isAlive() ? "running" : "status " + process.exitValue());
                lines.subList(Math.max(0, lines.size() - 150), lines.size()).forEach(System.out::println);
                System.out.printf("----- end of incarnation %d -----%n", round);
            } catch (IOException e) {
                System.out.println("cannot read the output of incarnation " + round + ": " + e);
            }
        }
    }
}
