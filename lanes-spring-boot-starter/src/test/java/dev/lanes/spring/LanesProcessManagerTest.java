package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;
import dev.lanes.examples.orders.Fulfilment;
import dev.lanes.examples.orders.OrderCommand.PlaceOrder;
import dev.lanes.examples.orders.OrderCommand.ReceiveStock;
import dev.lanes.examples.orders.OrderEvent.OrderCancelled;
import dev.lanes.examples.orders.OrderEvent.OrderPlaced;
import dev.lanes.examples.orders.Shop;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.postgres.PostgresDeadlineStore;
import dev.lanes.process.ProcessManager;
import dev.lanes.test.logging.LogCapture;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Process manager beans: registered with their instances and routing saga, and their deadlines fired by a runner over
 * the {@link DeadlineStore} bean (in memory, or PostgreSQL with a DataSource) unless {@code lanes.deadlines.run=false}.
 */
class LanesProcessManagerTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** Spring's warning when a refresh fails, and Lanes' when a manager's deadlines would not fire. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardErrorFailingOnError(); // fails a test that logs at ERROR

    /** Events and deadlines in memory, as chosen. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
            .withUserConfiguration(ShopBeans.class)
            .withPropertyValues("lanes.store=memory", "lanes.shutdown-timeout=10s");

    /** With a DataSource: everything in PostgreSQL. */
    private final ApplicationContextRunner postgres = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, LanesAutoConfiguration.class))
            .withUserConfiguration(ShopBeans.class)
            .withPropertyValues("lanes.shutdown-timeout=10s");

    @Test
    void anOrderNotPaidInTimeIsCancelledByItsDeadlineFiredHere() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LanesWiring.class).summary())
                    .contains("deadlines=InMemoryDeadlineStore")
                    .contains("fired here for [order-fulfilment]");
            placeAnOrder(context);
            await().atMost(WAIT).until(() -> orderEvents(context).stream().anyMatch(OrderCancelled.class::isInstance));
        });
    }

    @Test
    void withADataSourceTheDeadlinesAreKeptInPostgresAndFiredHere() {
        postgres.withPropertyValues(LanesAutoConfigurationTest.dataSource()).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).getBean(DeadlineStore.class).isInstanceOf(PostgresDeadlineStore.class);
            placeAnOrder(context);
            await().atMost(WAIT).until(() -> orderEvents(context).stream().anyMatch(OrderCancelled.class::isInstance));
        });
    }

    @Test
    void lanesDeadlinesRunFalseLeavesThemToAnotherProcessAndSaysSo() {
        runner.withPropertyValues("lanes.deadlines.run=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LanesWiring.class).summary())
                    .contains("deadlines=not fired here (lanes.deadlines.run=false)");
            assertThat(logs.lines(Level.WARN))
                    .anySatisfy(
                            line -> assertThat(line.message()).contains("[order-fulfilment]", "no deadline runner"));
        });
    }

    @Test
    void managersWhoseDeadlinesAreInTwoStoresFailTheStartNamingThem() {
        runner.withUserConfiguration(ReminderBeans.class)
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(LanesConfigurationException.class)
                        .hasMessageContaining("2 different stores")
                        .hasMessageContaining("[order-fulfilment]")
                        .hasMessageContaining("[reminders]"));
    }

    private static void placeAnOrder(ApplicationContext context) {
        CommandGateway gateway = context.getBean(CommandGateway.class);
        gateway.send(Shop.stock("sku-1"), new ReceiveStock(5), WaitStage.PROCESSED)
                .block(WAIT);
        gateway.send(Shop.order("o1"), new PlaceOrder("sku-1", 2), WaitStage.PROCESSED)
                .block(WAIT);
    }

    private static List<Object> orderEvents(ApplicationContext context) {
        return Objects.requireNonNull(context.getBean(Lanes.class)
                .eventStore()
                .load(Shop.order("o1"), 1)
                .flatMapIterable(stream -> stream.events())
                .map(event -> event.payload())
                .collectList()
                .block(WAIT));
    }

    /** The shop's aggregates and its fulfilment process, whose payment is due 200 ms after the order. */
    @Configuration(proxyBeanMethods = false)
    static class ShopBeans {
        @Bean
        AggregateDefinition<?> orders() {
            return Shop.orders();
        }

        @Bean
        AggregateDefinition<?> stock() {
            return Shop.stock();
        }

        @Bean
        AggregateDefinition<?> payments() {
            return Shop.payments();
        }

        @Bean
        ProcessManager<Fulfilment> fulfilment(DeadlineStore deadlines) {
            return Fulfilment.process(deadlines, Clock.systemUTC(), Duration.ofMillis(200));
        }
    }

    /** A second process manager whose deadlines are kept in a store of its own, not the bean. */
    @Configuration(proxyBeanMethods = false)
    static class ReminderBeans {
        @Bean
        ProcessManager<String> reminders() {
            return ProcessManager.builder("reminders", NamedAggregate.of("shop", "reminder"), String.class, key -> key)
                    .startOn(Shop.ORDER, OrderPlaced.class, OrderPlaced::orderId, (state, placed, context) -> state)
                    .onDeadline("remind", (state, due, context) -> state)
                    .deadlines(DeadlineStores.inMemory(), Clock.systemUTC())
                    .build();
        }
    }
}
