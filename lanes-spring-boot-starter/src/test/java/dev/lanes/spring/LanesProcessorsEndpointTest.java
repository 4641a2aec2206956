package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code lanesprocessors} Actuator endpoint over a processor fed from the store ({@code replay}): it lists the
 * processor's segment and pauses, resumes and resets it through the checkpoint store, which the running processor acts
 * on.
 */
class LanesProcessorsEndpointTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String PROCESSOR = "BalanceProjection";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(LanesAutoConfiguration.class, LanesProcessorsEndpointAutoConfiguration.class))
            .withUserConfiguration(BankBeans.class)
            .withPropertyValues(
                    "lanes.store=memory",
                    "lanes.processors.feed." + PROCESSOR + "=replay",
                    "management.endpoints.web.exposure.include=lanesprocessors");

    @Test
    void listsThePausesResumesAndResetsAProcessorFedFromTheStore() {
        runner.run(context -> {
            LanesProcessorsEndpoint endpoint = context.getBean(LanesProcessorsEndpoint.class);
            CommandGateway gateway = context.getBean(CommandGateway.class);
            BalanceProjection balances = context.getBean(BalanceProjection.class);
            gateway.send(Bank.account("e-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                    .block(WAIT);
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(endpoint.processor(PROCESSOR))
                            .singleElement()
                            .satisfies(segment -> assertThat(segment)
                                    .containsEntry("segment", 0)
                                    .containsEntry("segments", 1)
                                    .containsEntry("state", "RUNNING")
                                    .containsEntry("lagStreams", 0L)));
            assertThat(endpoint.processors()).containsOnlyKeys(PROCESSOR);

            // answered once this instance's tick saw the pause: the deposit below is not read
            assertThat(endpoint.act(PROCESSOR, "pause", null, null)).containsEntry("segments", List.of(0));
            await().atMost(WAIT)
                    .untilAsserted(() ->
                            assertThat(endpoint.processor(PROCESSOR).get(0)).containsEntry("state", "PAUSED"));
            gateway.send(Bank.account("e-1"), new Deposit(40), WaitStage.PROCESSED)
                    .block(WAIT);
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(endpoint.processor(PROCESSOR).get(0))
                                    .as("its lag while paused")
                                    .containsEntry("lagStreams", 1L));
            assertThat(balances.rows().get("e-1").balance())
                    .as("not read while paused")
                    .isZero();

            endpoint.act(PROCESSOR, "resume", 0, null);
            await().atMost(WAIT)
                    .untilAsserted(() ->
                            assertThat(balances.rows().get("e-1").balance()).isEqualTo(40));

            assertThat(endpoint.act(PROCESSOR, "reset", null, null))
                    .containsEntry("action", "reset")
                    .containsEntry("segments", List.of(0));
            await().atMost(WAIT)
                    .untilAsserted(
                            () -> assertThat(endpoint.processor(PROCESSOR).get(0))
                                    .containsEntry("state", "RUNNING")
                                    .containsEntry("lagStreams", 0L));
        });
    }

    @Test
    void anUnknownProcessorActionOrSeekWithoutPositionIsRefusedNamingIt() {
        runner.run(context -> {
            LanesProcessorsEndpoint endpoint = context.getBean(LanesProcessorsEndpoint.class);

            assertThatThrownBy(() -> endpoint.processor("Nope"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("No processor named Nope")
                    .hasMessageContaining(PROCESSOR);
            assertThatThrownBy(() -> endpoint.act(PROCESSOR, "explode", null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Unknown action 'explode'");
            assertThatThrownBy(() -> endpoint.act(PROCESSOR, "seek", null, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("needs a position");
        });
    }

    @Test
    void withoutExposureThereIsNoEndpoint() {
        runner.withPropertyValues("management.endpoints.web.exposure.include=health")
                .run(context -> assertThat(context).doesNotHaveBean(LanesProcessorsEndpoint.class));
    }
}
