package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonWriterTest {

    @Test
    void escapesWhatJsonRequiresAndParsesBack() {
        String nasty = "quote \" backslash \\ newline \n tab \t bell \u0007 line separator \u2028 é";

        String json = new JsonWriter()
                .beginObject()
                .field("text", nasty)
                .field("count", 3)
                .field("ratio", 0.125)
                .field("whole", 2.0)
                .field("nan", Double.NaN)
                .field("yes", true)
                .name("none")
                .nullValue()
                .name("list")
                .beginArray()
                .value(1)
                .value("two")
                .beginObject()
                .endObject()
                .endArray()
                .endObject()
                .toString();

        assertThat(json)
                .contains("\\\"")
                .contains("\\\\")
                .contains("\\n")
                .contains("\\u0007")
                .contains("\\u2028");
        Map<String, Object> parsed = MiniJson.object(MiniJson.parse(json));
        assertThat(parsed.get("text")).isEqualTo(nasty);
        assertThat(parsed.get("count")).isEqualTo(3.0);
        assertThat(parsed.get("ratio")).isEqualTo(0.125);
        assertThat(parsed.get("whole")).isEqualTo(2.0);
        assertThat(parsed.get("nan")).isSameAs(MiniJson.NULL);
        assertThat(parsed.get("yes")).isEqualTo(true);
        assertThat(parsed.get("none")).isSameAs(MiniJson.NULL);
        assertThat(MiniJson.array(parsed.get("list"))).hasSize(3).startsWith(1.0, "two");
        assertThat(MiniJson.array(parsed.get("list")).get(2)).isEqualTo(Map.of());
        assertThat(JsonWriter.quoted("a\"b")).isEqualTo("\"a\\\"b\"");
    }

    @Test
    void refusesAnUnclosedDocument() {
        JsonWriter writer = new JsonWriter().beginObject().name("a").beginArray();

        assertThatThrownBy(writer::toString).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void emptyContainersStayOnOneLine() {
        assertThat(new JsonWriter().beginArray().endArray().toString()).isEqualTo("[]");
        assertThat(MiniJson.parse(new JsonWriter()
                        .beginObject()
                        .name("a")
                        .beginArray()
                        .endArray()
                        .endObject()
                        .toString()))
                .isEqualTo(Map.of("a", List.of()));
    }
}
