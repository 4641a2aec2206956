package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.lanes.testsupport.TestKafka;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lanes demo --trace}: the HTML report draws one traced transfer as a waterfall, from the gateway through the
 * debit's lane, the event bus and the saga to the credit's lane and the projection; {@code --otlp-endpoint} sends the
 * spans to a collector (here a local HTTP server standing in for one).
 */
class DemoTraceTest {

    @Test
    void aTracedDemoDrawsOneTransferAsAWaterfall(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("demo.html");

        Cli.Result result = Cli.run(
                "demo",
                "--accounts",
                "40",
                "--clients",
                "8",
                "--commands",
                "3000",
                "--trace",
                "--html",
                html.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out())
                .contains("Tracing       traced with OpenTelemetry")
                .contains("is drawn in the HTML report");
        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertThat(page)
                .contains("<h2>Trace waterfall: one transfer")
                .containsSubsequence(
                        "gateway: send Withdraw to bank.account/",
                        "debit lane: Withdraw on bank.account/",
                        ">load<",
                        ">decide<",
                        ">append<",
                        ">publish<",
                        "event bus to TransferSaga",
                        "saga: TransferSaga of bank.account/",
                        "saga: send Deposit to bank.account/",
                        "credit lane: Deposit on bank.account/",
                        "event bus to BalanceProjection",
                        "projection: BalanceProjection of bank.account/")
                .contains("class=\"wf-bar wf-SEND\"", "class=\"wf-bar wf-BUS\"", "class=\"wf-bar wf-HANDLING\"")
                .doesNotContain("<script");
    }

    @Test
    void overKafkaThePublicationIsAHopOfItsOwn(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("kafka.html");

        Cli.Result result = Cli.run(
                "demo",
                "--bus",
                "kafka",
                "--bootstrap-servers",
                TestKafka.bootstrapServers(),
                "--instances",
                "2",
                "--partitions",
                "4",
                "--accounts",
                "20",
                "--clients",
                "8",
                "--commands",
                "2000",
                "-q",
                "--trace",
                "--html",
                html.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(Files.readString(html, StandardCharsets.UTF_8))
                .containsSubsequence(
                        "gateway: send Withdraw to bank.account/",
                        "debit lane: Withdraw on bank.account/",
                        "bus: publish of bank.account/",
                        "to kafka",
                        "event bus to TransferSaga",
                        "saga: TransferSaga of bank.account/",
                        "saga: send Deposit to bank.account/",
                        "credit lane: Deposit on bank.account/",
                        "bus: publish of bank.account/");
    }

    @Test
    void withoutTraceTheReportHasNoWaterfall(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("demo.html");

        Cli.Result result =
                Cli.run("demo", "--accounts", "20", "--clients", "4", "--commands", "500", "--html", html.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).doesNotContain("Tracing");
        assertThat(Files.readString(html, StandardCharsets.UTF_8)).doesNotContain("Trace waterfall");
    }

    @Test
    void anOtlpEndpointReceivesTheSpans() throws Exception {
        AtomicLong bytes = new AtomicLong();
        ConcurrentLinkedQueue<String> requests = new ConcurrentLinkedQueue<>();
        HttpServer collector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        collector.createContext("/v1/traces", exchange -> {
            try (InputStream body = exchange.getRequestBody()) {
                bytes.addAndGet(body.readAllBytes().length);
            }
            requests.add(exchange.getRequestMethod() + " "
                    + exchange.getRequestHeaders().getFirst("Content-Type"));
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        collector.start();
        try {
            String endpoint = "http://127.0.0.1:" + collector.getAddress().getPort() + "/v1/traces";

            Cli.Result result = Cli.run(
                    "demo", "--accounts", "20", "--clients", "4", "--commands", "500", "--otlp-endpoint", endpoint);

            assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
            assertThat(result.out()).contains("spans exported to " + endpoint);
            // the provider is shut down (its batches flushed) before the demo returns
            assertThat(requests).isNotEmpty().allMatch(request -> request.equals("POST application/x-protobuf"));
            assertThat(bytes.get()).isPositive();
        } finally {
            collector.stop(0);
        }
    }

    @Test
    void anOtlpEndpointThatIsNotAnHttpUrlIsRefusedNamingIt() {
        Cli.Result result = Cli.run("demo", "--commands", "10", "--otlp-endpoint", "localhost:4318");

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.err())
                .contains("--otlp-endpoint must be an http or https URL with a host")
                .contains("localhost:4318");
    }
}
