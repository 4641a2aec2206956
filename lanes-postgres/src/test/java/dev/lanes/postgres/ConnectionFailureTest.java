package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.lanes.api.AggregateId;
import dev.lanes.api.LanesException;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** A bad URL, an unreachable or stalled server, connections dropped mid-run: errors with names, never hangs. */
class ConnectionFailureTest {
    private static final Logger log = LoggerFactory.getLogger(ConnectionFailureTest.class);

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void anUnreachableServerFailsAtConnectNamingHostAndPort() throws IOException {
        int port = closedPort();
        long started = System.nanoTime();

        assertThatThrownBy(() -> PostgresEventStore.connect(
                        "jdbc:postgresql://127.0.0.1:" + port + "/postgres", "postgres", "s3cret"))
                .isInstanceOf(PostgresUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port)
                .hasMessageNotContaining("s3cret")
                .satisfies(error ->
                        assertThat(((LanesException) error).isRecoverable()).isTrue());
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aServerThatAcceptsButNeverAnswersFailsWithinTheLoginTimeoutNamingItAndTheServer() throws IOException {
        // the kernel accepts the connection into the backlog; nothing ever reads or answers it
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            String url = "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/postgres?password=s3cret";
            PostgresOptions options =
                    PostgresOptions.DEFAULT.withPoolSize(1).withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2));
            long started = System.nanoTime();

            assertThatThrownBy(() -> assertTimeoutPreemptively(
                            Duration.ofSeconds(20), () -> PostgresEventStore.connect(url, "postgres", null, options)))
                    .isInstanceOf(PostgresUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + silent.getLocalPort() + "/postgres")
                    .hasMessageContaining("connect and login timeout of 1 s")
                    .hasMessageNotContaining("s3cret");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(8));
        }
    }

    @Test
    void aMalformedUrlFailsNamingTheUrlButNotItsQuery() {
        // pgjdbc warns through java.util.logging about the port before the URL is refused; the refusal is tested here
        java.util.logging.Logger urlParser = java.util.logging.Logger.getLogger("org.postgresql.util.PGPropertyUtil");
        java.util.logging.Level level = urlParser.getLevel();
        urlParser.setLevel(java.util.logging.Level.SEVERE);
        try {
            for (String url : List.of(
                    "jdbc:postgresql://127.0.0.1:notaport/postgres",
                    "jdbc:mysql://127.0.0.1:3306/lanes",
                    "postgresql://127.0.0.1:5432/lanes")) {
                assertThatThrownBy(() -> PostgresEventStore.connect(url, "postgres", null))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(url);
            }
        } finally {
            urlParser.setLevel(level);
        }
        assertThatThrownBy(() -> PostgresEventStore.connect(
                        "jdbc:mysql://127.0.0.1:3306/lanes?password=s3cret", "postgres", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void anUnknownDatabaseFailsNamingServerAndDatabase() {
        String url = TestDatabase.jdbcUrl("no_such_database");

        assertThatThrownBy(() -> PostgresEventStore.connect(url, TestDatabase.USER, null))
                .isInstanceOf(PostgresStoreException.class)
                .hasMessageContaining("127.0.0.1:" + TestDatabase.port() + "/no_such_database")
                .hasMessageContaining("no_such_database\" does not exist");
    }

    @Test
    void aStalledServerIsAnErrorAfterTheSocketTimeoutNotAHang() throws Exception {
        TestDatabase.store(); // started and migrated
        PostgresOptions options = PostgresOptions.DEFAULT
                .withPoolSize(1)
                .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2))
                .withApplicationName("lanes-stall");
        try (PostgresEventStore store =
                PostgresEventStore.connect(TestDatabase.jdbcUrl(), TestDatabase.USER, null, options)) {
            AggregateId id = Bank.account("stall-" + UUID.randomUUID());
            DomainEventStream first = new DomainEventStream(
                    "s-1",
                    id,
                    1,
                    "r-1",
                    "c-1",
                    List.of(new DomainEvent(1, new Deposited(1, ""))),
                    Instant.parse("2020-01-01T00:00:00Z"),
                    Map.of());
            store.append(first).block(Duration.ofSeconds(10));
            // the server stops answering the pool's only connection: another session holds the table, so the load's
            // query waits on the server without a byte coming back (the pool's own check of an idle connection, which
            // asks nothing of the table, still passes)
            try (Connection blocker = DriverManager.getConnection(TestDatabase.jdbcUrl(), TestDatabase.USER, null);
                    Statement lock = blocker.createStatement()) {
                blocker.setAutoCommit(false);
                lock.execute("LOCK TABLE lanes_event_streams IN ACCESS EXCLUSIVE MODE");
                long started = System.nanoTime();
                StepVerifier.create(store.load(id, 1))
                        .expectErrorSatisfies(error -> assertThat(error)
                                .isInstanceOf(PostgresUnavailableException.class)
                                .hasMessageContaining("127.0.0.1:" + TestDatabase.port()))
                        .verify(Duration.ofSeconds(20));
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                assertThat(took)
                        .isGreaterThanOrEqualTo(Duration.ofMillis(1_500))
                        .isLessThan(Duration.ofSeconds(10));
                blocker.rollback();
            }
            // the pool replaced the dropped connection: the store works again
            StepVerifier.create(store.load(id, 1)).expectNext(first).verifyComplete();
        }
    }

    /** How each command ended. */
    private record Outcome(String requestId, int amount, String result) {}

    @Test
    void connectionsTerminatedDuringARunAreRetriedAndEveryCommandIsAnswered() throws SQLException {
        TestDatabase.store();
        String application = "lanes-chaos-" + UUID.randomUUID().toString().substring(0, 8);
        try (PostgresEventStore store = PostgresEventStore.connect(
                        TestDatabase.jdbcUrl(),
                        TestDatabase.USER,
                        null,
                        PostgresOptions.DEFAULT.withPoolSize(4).withApplicationName(application));
                BankNode node = new BankNode("Chaos", store).start()) {
            int accounts = 20;
            int commands = 1_500;
            List<AggregateId> ids = new ArrayList<>();
            for (int i = 0; i < accounts; i++) {
                ids.add(Bank.account("chaos-" + i + "-" + UUID.randomUUID()));
            }
            Flux.fromIterable(ids)
                    .flatMap(id -> node.gateway().send(id, new OpenAccount("o"), WaitStage.PROCESSED))
                    .blockLast(Duration.ofSeconds(30));

            AtomicInteger terminated = new AtomicInteger();
            Flux<Integer> killer = Flux.interval(
                            Duration.ofMillis(50), Duration.ofMillis(150), Schedulers.boundedElastic())
                    .take(8)
                    .map(tick -> terminateBackends(application))
                    .doOnNext(terminated::addAndGet);
            Flux<Outcome> work = Flux.range(1, commands)
                    .flatMap(
                            i -> {
                                CommandMessage command = CommandMessage.of(ids.get(i % accounts), new Deposit(i));
                                return node.gateway()
                                        .send(command, WaitStage.PROCESSED)
                                        .map(result -> new Outcome(command.requestId(), i, "PROCESSED"))
                                        .onErrorResume(error -> Mono.just(new Outcome(
                                                command.requestId(),
                                                i,
                                                error.getClass().getSimpleName())));
                            },
                            32);
            List<Outcome> outcomes = Flux.merge(killer.then(Mono.<Outcome>empty()), work)
                    .collectList()
                    .block(Duration.ofSeconds(90));

            assertThat(outcomes).as("every sender got an answer").hasSize(commands);
            assertThat(terminated.get()).as("backends terminated").isPositive();
            Map<String, Integer> byResult = new TreeMap<>();
            outcomes.forEach(outcome -> byResult.merge(outcome.result(), 1, Integer::sum));
            log.info(
                    "chaos: {} backends terminated, outcomes {}, lane retries {}, parked {}",
                    terminated.get(),
                    byResult,
                    node.stats().retried(),
                    node.stats().parked());
            assertThat(byResult.keySet())
                    .as("a command is processed, or fails with an outage (retries exhausted, or the gateway's"
                            + " request id check failed), or its retries ran out after an append the store did not"
                            + " confirm (StageNotReachedException, storage UNKNOWN); never a duplicate request id")
                    .isSubsetOf(
                            "PROCESSED",
                            PostgresUnavailableException.class.getSimpleName(),
                            StageNotReachedException.class.getSimpleName());
            assertThat(byResult.getOrDefault("PROCESSED", 0)).isGreaterThan(commands / 2);

            Set<String> processed = new HashSet<>();
            Set<String> sent = new HashSet<>();
            for (Outcome outcome : outcomes) {
                sent.add(outcome.requestId());
                if (outcome.result().equals("PROCESSED")) {
                    processed.add(outcome.requestId());
                }
            }
            Set<String> stored = ConcurrentHashMap.newKeySet();
            for (AggregateId id : ids) {
                List<DomainEventStream> streams =
                        TestDatabase.store().load(id, 1).collectList().block();
                assertThat(streams).isNotNull();
                for (int v = 0; v < streams.size(); v++) {
                    assertThat(streams.get(v).version()).isEqualTo(v + 1);
                    if (v > 0) {
                        assertThat(stored.add(streams.get(v).requestId())).isTrue();
                    }
                }
            }
            assertThat(stored).as("every processed deposit is stored once").containsAll(processed);
            for (Outcome outcome : outcomes) {
                if (outcome.result().equals(PostgresUnavailableException.class.getSimpleName())) {
                    assertThat(stored)
                            .as("answered with an outage, so not stored: %s", outcome)
                            .doesNotContain(outcome.requestId());
                }
            }
            assertThat(sent).as("nothing stored that was not sent").containsAll(stored);
        }
    }

    /** Terminates the server processes of the connections of one application; returns how many. */
    private static int terminateBackends(String application) {
        try (Connection connection = TestDatabase.store().dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                        + " WHERE application_name = '" + application + "'")) {
            rows.next();
            return rows.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
