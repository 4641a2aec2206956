package dev.lanes.cli;

import java.util.ArrayDeque;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A tiny streaming JSON writer (two-space indentation), enough for the report: objects, arrays, strings, numbers,
 * booleans and null. Non-finite doubles are written as {@code null}. The caller keeps names and values paired.
 */
final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    /** Elements written so far in each open container, innermost first. */
    private final ArrayDeque<int[]> open = new ArrayDeque<>();

    private boolean afterName;

    JsonWriter beginObject() {
        beforeValue();
        out.append('{');
        open.push(new int[1]);
        return this;
    }

    JsonWriter endObject() {
        return end('}');
    }

    JsonWriter beginArray() {
        beforeValue();
        out.append('[');
        open.push(new int[1]);
        return this;
    }

    JsonWriter endArray() {
        return end(']');
    }

    JsonWriter name(String name) {
        separate();
        quote(name);
        out.append(": ");
        afterName = true;
        return this;
    }

    JsonWriter value(@Nullable String value) {
        beforeValue();
        if (value == null) {
            out.append("null");
        } else {
            quote(value);
        }
        return this;
    }

    JsonWriter value(long value) {
        beforeValue();
        out.append(value);
        return this;
    }

    JsonWriter value(double value) {
        beforeValue();
        if (!Double.isFinite(value)) {
            out.append("null");
        } else if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            out.append((long) value);
        } else {
            out.append(trimZeros(String.format(Locale.ROOT, "%.3f", value)));
        }
        return this;
    }

    JsonWriter value(boolean value) {
        beforeValue();
        out.append(value);
        return this;
    }

    JsonWriter nullValue() {
        beforeValue();
        out.append("null");
        return this;
    }

    JsonWriter field(String name, @Nullable String value) {
        return name(name).value(value);
    }

    JsonWriter field(String name, long value) {
        return name(name).value(value);
    }

    JsonWriter field(String name, double value) {
        return name(name).value(value);
    }

    JsonWriter field(String name, boolean value) {
        return name(name).value(value);
    }

    /** The document; every container must have been closed. */
    @Override
    public String toString() {
        if (!open.isEmpty()) {
            throw new IllegalStateException("unclosed JSON container(s): " + open.size());
        }
        return out.toString();
    }

    /** A JSON string literal for {@code text}: quotes, backslash and control characters escaped. */
    static String quoted(String text) {
        JsonWriter writer = new JsonWriter();
        writer.quote(text);
        return writer.out.toString();
    }

    private JsonWriter end(char bracket) {
        int[] written = open.pop();
        if (written[0] > 0) {
            newline();
        }
        out.append(bracket);
        return this;
    }

    private void beforeValue() {
        if (afterName) {
            afterName = false;
        } else {
            separate();
        }
    }

    private void separate() {
        int[] written = open.peek();
        if (written == null) {
            if (out.length() > 0) {
                throw new IllegalStateException("a JSON document has one top-level value");
            }
            return;
        }
        if (written[0]++ > 0) {
            out.append(',');
        }
        newline();
    }

    private void newline() {
        out.append('\n');
        out.append("  ".repeat(open.size()));
    }

    private void quote(String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    // control characters, and the line separators JavaScript does not allow in string literals
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static String trimZeros(String decimal) {
        int end = decimal.length();
        while (decimal.charAt(end - 1) == '0') {
            end--;
        }
        if (decimal.charAt(end - 1) == '.') {
            end--;
        }
        return decimal.substring(0, end);
    }
}
