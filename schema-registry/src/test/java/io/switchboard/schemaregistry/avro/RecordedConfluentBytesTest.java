package io.switchboard.schemaregistry.avro;

import static org.assertj.core.api.Assertions.assertThat;

import io.switchboard.schemaregistry.StandInRegistry;
import io.switchboard.schemaregistry.StandInRegistryTest;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Payloads a real Confluent stack wrote: Confluent's Kafka REST Proxy (which serializes Avro values with
 * KafkaAvroSerializer) backed by Confluent Schema Registry, read back from Kafka as raw bytes. The bytes (as base64)
 * and their schemas are data recorded in the post "Avro Binary encoding based on messages in Kafka", repository
 * tomaszbartoszewski/tomaszbartoszewski.github.io, path _posts/2020-07-12-avro-binary-encoding-in-kafka.md (schema ids
 * 1 and 3 are those that registry gave). The registry here is {@link StandInRegistry}, a stand-in seeded with those
 * ids, not the real one: the codec must decode the recorded bytes and write the very same bytes back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RecordedConfluentBytesTest extends StandInRegistryTest {
    private static final Schema USER = new Schema.Parser().parse(
            "{\"type\": \"record\", \"name\": \"User\", \"fields\": [{\"name\": \"name\", \"type\": \"string\"}]}");
    /** The four values of topic user_data, offsets 0 to 3, schema id 1. */
    private static final List<String> USERS = List.of("AAAAAAEOQXJhZ29ybg==", "AAAAAAESR2FsYWRyaWVs", "AAAAAAEKR2ltbGk=",
            "AAAAAAEKQXJ3ZW4=");

    private static final Schema FACTORY_WORKER = new Schema.Parser().parse("""
            {"type": "record", "name": "FactoryWorker", "fields": [
              {"name": "employeeId", "type": "string"},
              {"name": "employeeRole", "type": {"name": "enumType", "type": "enum", "symbols": ["Manager", "ProductionWorker"]}},
              {"name": "team", "type": ["null", "string"], "default": null},
              {"name": "weeklyProduction", "type": {"type": "array", "items": {"name": "DailyProduction", "type": "record",
                "fields": [{"name": "timeStart", "type": ["null", "string"]}, {"name": "timeEnd", "type": ["null", "string"]},
                           {"name": "manufactured", "type": "int"}]}}},
              {"name": "workSchedule", "type": ["null", {"name": "Schedule", "type": "record", "fields": [
                {"name": "monday", "type": ["null", "string"]}, {"name": "tuesday", "type": ["null", "string"]},
                {"name": "wednesday", "type": ["null", "string"]}, {"name": "thursday", "type": ["null", "string"]},
                {"name": "friday", "type": ["null", "string"]}, {"name": "saturday", "type": ["null", "string"]},
                {"name": "sunday", "type": ["null", "string"]}]}]}
            ]}""");
    /** The value complex_object.sh published, schema id 3. */
    private static final String FACTORY_WORKER_VALUE = "AAAAAANIYWEzYWZkNDQtODExOS00NTY1LTgwOWItOWRmNzVkNmRkYWIwAgICQgQCCDA3MDACCDE1"
            + "MDAYAggxMjAwAggyMDAwEAACAggwMTAwAggwMjAwAggwMzAwAggwNDAwAggwNTAwAggwNjAwAggwNzAw";

    @BeforeEach
    void seed() {
        registry.seed("user_data-value", 1, "AVRO", USER.toString());
        registry.seed("factory_worker-value", 3, "AVRO", FACTORY_WORKER.toString());
    }

    @Test
    void readsTheUsersAndWritesTheSameBytes() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, USER).destination("user_data").build();

        for (String recorded : USERS) {
            byte[] bytes = Base64.getDecoder().decode(recorded);
            GenericRecord user = codec.decode(bytes);
            assertThat(codec.encode(user)).isEqualTo(bytes);
        }
        assertThat(codec.decode(Base64.getDecoder().decode(USERS.get(0))).get("name").toString()).isEqualTo("Aragorn");
        assertThat(codec.decode(Base64.getDecoder().decode(USERS.get(1))).get("name").toString()).isEqualTo("Galadriel");
    }

    @Test
    void readsTheFactoryWorkerAndWritesTheSameBytes() {
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, FACTORY_WORKER).destination("factory_worker").build();
        byte[] bytes = Base64.getDecoder().decode(FACTORY_WORKER_VALUE);

        GenericRecord worker = codec.decode(bytes);

        assertThat(worker.get("employeeId").toString()).isEqualTo("aa3afd44-8119-4565-809b-9df75d6ddab0");
        assertThat(worker.get("employeeRole").toString()).isEqualTo("ProductionWorker");
        assertThat(worker.get("team").toString()).isEqualTo("B");
        assertThat((List<?>) worker.get("weeklyProduction")).hasSize(2);
        GenericRecord firstDay = (GenericRecord) ((List<?>) worker.get("weeklyProduction")).get(0);
        assertThat(firstDay.get("timeStart").toString()).isEqualTo("0700");
        assertThat(firstDay.get("manufactured")).isEqualTo(12);
        assertThat(((GenericRecord) worker.get("workSchedule")).get("sunday").toString()).isEqualTo("0700");
        assertThat(codec.encode(worker)).isEqualTo(bytes);
    }

    @Test
    void aReaderWithAnEvolvedSchemaReadsTheRecordedBytes() {
        Schema evolved = new Schema.Parser().parse("{\"type\": \"record\", \"name\": \"User\", \"fields\": ["
                + "{\"name\": \"name\", \"type\": \"string\"},"
                + "{\"name\": \"yearOfBirth\", \"type\": [\"null\", \"int\"], \"default\": null}]}");
        AvroCodec<GenericRecord> codec = AvroCodec.generic(client, evolved).destination("user_data").build();

        GenericRecord user = codec.decode(Base64.getDecoder().decode(USERS.get(3)));

        assertThat(user.get("name").toString()).isEqualTo("Arwen");
        assertThat(user.get("yearOfBirth")).isNull();
        assertThat(registry.requests).containsExactly("GET /schemas/ids/1");
    }
}
