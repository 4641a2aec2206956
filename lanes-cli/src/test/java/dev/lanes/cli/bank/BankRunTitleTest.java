package dev.lanes.cli.bank;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.kafka.KafkaOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The report's title names the store and the buses the run used, for every pair the options allow. */
class BankRunTitleTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "DEMO     | memory   | memory | Lanes demo: the bank end to end on the in-memory event store and buses",
                "DEMO     | postgres | memory | Lanes demo: the bank end to end on PostgreSQL and the in-memory buses",
                "DEMO     | memory   | kafka  | Lanes demo: the bank end to end on the in-memory event store and Kafka,"
                        + " 3 instance(s)",
                "DEMO     | postgres | kafka  | Lanes demo: the bank end to end on PostgreSQL and Kafka, 3 instance(s)",
                "DEPOSITS | postgres | memory | Lanes bench: the command path (gateway, command bus, command dispatcher,"
                        + " store) on PostgreSQL and the in-memory buses",
                "DEPOSITS | memory   | memory | Lanes bench: the command path (gateway, command bus, command dispatcher,"
                        + " store) on the in-memory event store and buses"
            })
    void theTitleNamesTheStoreAndTheBuses(BankRun.Workload workload, String store, String bus, String title) {
        Stores stores = Stores.inMemory(store, store, EventCodec.bank());
        Buses buses = bus.equals("kafka") ? Buses.kafka(KafkaOptions.of("127.0.0.1:9092"), 3) : Buses.memory();

        assertThat(BankRun.title(workload, stores, buses)).isEqualTo(title);
    }
}
