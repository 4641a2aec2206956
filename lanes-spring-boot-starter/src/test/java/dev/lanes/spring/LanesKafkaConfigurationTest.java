package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.kafka.KafkaBuses;
import dev.lanes.postgres.JacksonEventSerializer;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.testsupport.InProcessKafka;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Kafka buses when lanes.kafka.bootstrap-servers is set: the bank's commands and events go through a real broker. */
class LanesKafkaConfigurationTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static InProcessKafka kafka;

    @BeforeAll
    static void startBroker() {
        kafka = InProcessKafka.start();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        kafka.close();
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
            .withUserConfiguration(BankBeans.class)
            .withPropertyValues("lanes.store=memory");

    @Test
    void bootstrapServersWireTheKafkaBusesAndCommandsFlowThroughTheBroker() throws Exception {
        String prefix = "spring-" + UUID.randomUUID().toString().substring(0, 8);
        runner.withPropertyValues(
                        "lanes.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                        "lanes.kafka.topic-prefix=" + prefix,
                        "lanes.kafka.instance-id=spring-1",
                        "lanes.kafka.topic-partitions=2",
                        "lanes.shutdown-timeout=20s")
                .run(context -> {
                    assertThat(context).hasSingleBean(KafkaBuses.class);
                    KafkaBuses buses = context.getBean(KafkaBuses.class);
                    assertThat(buses.options().instanceId()).isEqualTo("spring-1");
                    assertThat(context.getBean(Lanes.class).runtime().state()).isEqualTo(LanesRuntime.State.RUNNING);
                    CommandGateway gateway = context.getBean(CommandGateway.class);

                    gateway.send(Bank.account("k-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                            .block(WAIT);
                    gateway.send(Bank.account("k-1"), new Deposit(25), WaitStage.PROJECTED)
                            .block(WAIT);

                    assertThat(context.getBean(BalanceProjection.class)
                                    .rows()
                                    .get("k-1")
                                    .balance())
                            .isEqualTo(25);
                    assertThat(topics())
                            .contains(prefix + ".bank.commands", prefix + ".bank.events", prefix + ".replies");
                });
    }

    @Test
    void theBusSendsEventsWithTheCodecTheStoreUsesAndItsEventTypes() {
        EventTypes types = EventTypes.builder()
                .register(AccountOpened.class, "bank.AccountOpened", 2)
                .build();
        runner.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(LanesAutoConfigurationTest.dataSource())
                .withPropertyValues("lanes.store=postgres")
                .withPropertyValues(kafkaProperties())
                .withBean(EventTypes.class, () -> types)
                .run(context -> {
                    JacksonEventSerializer storeCodec = context.getBean(JacksonEventSerializer.class);
                    assertThat(context.getBean(KafkaBuses.class).eventCodec()).isSameAs(storeCodec);
                    assertThat(storeCodec.encode(new AccountOpened("ada")).toString())
                            .isEqualTo("bank.AccountOpened@2");
                });
    }

    @Test
    void withoutAStoreTheBusTakesTheApplicationsEventTypes() {
        EventTypes types = EventTypes.builder()
                .register(AccountOpened.class, "bank.AccountOpened", 2)
                .build();
        runner.withPropertyValues(kafkaProperties())
                .withBean(EventTypes.class, () -> types)
                .run(context -> assertThat(context.getBean(KafkaBuses.class)
                                .eventCodec()
                                .encode(new AccountOpened("ada"))
                                .toString())
                        .isEqualTo("bank.AccountOpened@2"));
    }

    private static String[] kafkaProperties() {
        String prefix = "spring-" + UUID.randomUUID().toString().substring(0, 8);
        return new String[] {
            "lanes.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "lanes.kafka.topic-prefix=" + prefix,
            "lanes.kafka.topic-partitions=1",
            "lanes.shutdown-timeout=20s"
        };
    }

    @Test
    void withoutBootstrapServersTheBusesStayInMemory() {
        runner.run(context -> assertThat(context).doesNotHaveBean(KafkaBuses.class));
    }

    private static Set<String> topics() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            return admin.listTopics().names().get();
        }
    }
}
