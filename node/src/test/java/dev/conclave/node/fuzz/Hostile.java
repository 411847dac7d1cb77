package dev.conclave.node.fuzz;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The generators every surface shares: hostile strings and JSON values, malformed JSON documents,
 * and mutations of a well-formed JSON request (a member removed, retyped, replaced by something
 * hostile, or added), so that a generated request gets past the first check often enough to reach
 * the code behind it. Everything shrinks: to fewer mutations, shorter strings, smaller numbers.
 */
final class Hostile {

  private Hostile() {
  }

  /** A JSON value written as it is: lets a document hold what no JSON library would write (1e999, a lone surrogate). */
  record Raw(String json) {
  }

  /** One change to a JSON document: {@code target} picks a member or element (modulo their number; 0 is the root). */
  record Mutation(Kind kind, int target, String raw, String key) {
    enum Kind { REPLACE, REMOVE, ADD, DUPLICATE }

    @Override
    public String toString() {
      return kind + "#" + target + (kind == Kind.REMOVE ? "" : "=" + Findings.abbreviate(kind == Kind.ADD ? key + ":" + raw : raw, 120));
    }
  }

  // ---- strings ---------------------------------------------------------------------------------

  /** Strings a parser, a database or a log line may choke on: control characters, NUL, lone surrogates, odd Unicode. */
  static Arbitrary<String> strings() {
    Arbitrary<String> odd = Arbitraries.strings().withCharRange('\u0000', '\u007f')
      .withChars('\u0085', '\u00a0', '\u00ff', '\u2028', '\u2029', '\u202e', '\ufeff', '\ufffd', '\uffff', '\ud800', '\udfff', '€', '漢')
      .ofMaxLength(24);
    return Arbitraries.frequencyOf(
      Tuple.of(5, odd),
      Tuple.of(2, Arbitraries.strings().all().ofMaxLength(16)),
      Tuple.of(2, Arbitraries.of("", " ", "\u0000", "a\u0000b", "\ud800", "x\udfffy", "😀", "..", "../../etc/passwd", "%00", "%s%n%x",
        "' OR '1'='1", "\"; DROP TABLE x; --", "<script>alert(1)</script>", "${jndi:ldap://127.0.0.1/x}", "\r\nx-injected: 1",
        "null", "undefined", "NaN", "-1", "0", "9999999999999999999999", "1e999", "true", "{}", "[]", "\\", "\\u0000",
        "conclave.events.presence", "fz-agent", "fz-swarm", "fz-task", "00000000-0000-0000-0000-000000000000")),
      Tuple.of(1, Arbitraries.integers().between(200, 70_000).map(n -> "x".repeat(n))));
  }

  // ---- JSON values -----------------------------------------------------------------------------

  /** A hostile JSON value, as JSON text. */
  static Arbitrary<String> jsonValues() {
    return Arbitraries.frequencyOf(
      Tuple.of(4, Arbitraries.of("null", "true", "false", "0", "-0", "-1", "1.5", "2147483648", "-2147483649", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "18446744073709551616", "1e308", "1e309", "-1e999", "1E-400", "0.1e-99999",
        "123456789012345678901234567890", "[]", "{}", "[null]", "[[]]", "{\"\":null}", "[\"\"]", "[1,\"a\",{},[],null,true]",
        "\"\"", "\"\\u0000\"", "\"\\ud800\"", "\"\\udfff\\ud800\"", "\"a\\u0000b\"", "\"2.0\"", "\"1.0\"", "\"-1\"", "\"1e999\"",
        "{\"$ref\":\"#\"}", "{\"__proto__\":{}}", "\"2024-02-30T25:61:61Z\"", "\"P99999999999D\"")),
      Tuple.of(4, strings().map(Json::encode)),
      Tuple.of(1, Arbitraries.integers().between(2, 5000).map(n -> "[".repeat(n) + "]".repeat(n))),
      Tuple.of(1, Arbitraries.integers().between(2, 3000).map(n -> "{\"a\":".repeat(n) + "1" + "}".repeat(n))),
      Tuple.of(1, Arbitraries.integers().between(20, 5000).map(n -> "9".repeat(n))),
      Tuple.of(1, Arbitraries.integers().between(10, 20_000).map(n -> "[" + "1,".repeat(n) + "1]")),
      Tuple.of(1, Arbitraries.longs().map(String::valueOf)),
      Tuple.of(1, Arbitraries.doubles().map(d -> Double.isFinite(d) ? String.valueOf(d) : "1e999")),
      Tuple.of(1, strings().list().ofMaxSize(5).map(l -> new JsonArray(new ArrayList<>(l)).encode())));
  }

  /** Whole documents that are not JSON, or JSON that is not an object, as bytes. */
  static Arbitrary<byte[]> malformedDocuments() {
    Arbitrary<byte[]> fixed = Arbitraries.of("", " ", "{", "}", "{\"a\":", "{\"a\":1", "{}{}", "{} x", "[", "nul", "NaN", "Infinity",
      "{\"a\":NaN}", "{'a':1}", "{a:1}", "\u0000", "{\"a\":1}\u0000", "{\"a\":1,\"a\":2}", "\ufeff{}", "/* c */ {}", "// c\n{}",
      "{\"a\":\"\\x00\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\\"}", "{\"a\":01}", "{\"a\":+1}", "{\"a\":.5}", "{\"a\":1.}", "{\"a\":--1}",
      "{,}", "{\"a\":1,}", "[1,]", "\"\\ud800\"", "{\"\\u0000\":1}", "{\"a\"\n:\n1}", "{\"a\":\"line\nbreak\"}")
      .map(s -> s.getBytes(StandardCharsets.UTF_8));
    Arbitrary<byte[]> bytes = Arbitraries.of(
      new byte[] {(byte) 0xc3, 0x28}, new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xff, '"', '}'},
      new byte[] {'{', '"', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '"', ':', '1', '}'}, new byte[] {(byte) 0xfe, (byte) 0xff, 0, '{', 0, '}'},
      new byte[] {(byte) 0xff, (byte) 0xfe, '{', 0, '}', 0}, new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xc0, (byte) 0x80, '"', '}'},
      new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"', '}'});
    return Arbitraries.frequencyOf(
      Tuple.of(4, fixed),
      Tuple.of(2, bytes),
      Tuple.of(2, jsonValues().map(s -> s.getBytes(StandardCharsets.UTF_8))),
      Tuple.of(2, Arbitraries.bytes().array(byte[].class).ofMaxSize(256)),
      Tuple.of(1, Arbitraries.integers().between(2, 200_000).map(n -> ("[".repeat(n) + "]".repeat(n)).getBytes(StandardCharsets.UTF_8))),
      Tuple.of(1, Arbitraries.integers().between(2, 200_000).map(n -> "{\"a\":".repeat(n).getBytes(StandardCharsets.UTF_8))));
  }

  // ---- mutations of a well-formed request ------------------------------------------------------

  static Arbitrary<Mutation> mutation() {
    Arbitrary<Integer> target = Arbitraries.integers().between(0, 63);
    Arbitrary<String> key = Arbitraries.frequencyOf(
      Tuple.of(3, Arbitraries.of("id", "type", "agentId", "taskId", "token", "content", "operation", "protocolVersion", "headers",
        "address", "body", "status", "limit", "roles", "value", "tasks", "replyAddress", "__proto__", "")),
      Tuple.of(1, strings()));
    return Arbitraries.frequencyOf(
      Tuple.of(6, Combinators.combine(target, jsonValues()).as((t, v) -> new Mutation(Mutation.Kind.REPLACE, t, v, null))),
      Tuple.of(2, target.map(t -> new Mutation(Mutation.Kind.REMOVE, t, null, null))),
      Tuple.of(2, Combinators.combine(target, key, jsonValues()).as((t, k, v) -> new Mutation(Mutation.Kind.ADD, t, v, k))),
      Tuple.of(1, Combinators.combine(target, jsonValues()).as((t, v) -> new Mutation(Mutation.Kind.DUPLICATE, t, v, null))));
  }

  /** Mutations of {@code template}: 1 to 3 of them; an unmutated template now and then too. */
  static Arbitrary<List<Mutation>> mutations() {
    return mutation().list().ofMinSize(0).ofMaxSize(3);
  }

  /** Applies {@code mutations} to {@code template} and writes the result as JSON text. */
  static String mutate(JsonObject template, List<Mutation> mutations) {
    Object root = copy(template.getMap());
    for (Mutation m : mutations) {
      root = apply(root, m);
    }
    StringBuilder out = new StringBuilder();
    write(root, out);
    return out.toString();
  }

  /** A slot that holds a value: the root, an object member or an array element. */
  private record Slot(Object container, Object key) {
  }

  private static Object apply(Object root, Mutation m) {
    List<Slot> slots = new ArrayList<>();
    slots.add(new Slot(null, null));
    collect(root, slots);
    Slot slot = slots.get(m.target() % slots.size());
    Object value = slot.container() == null ? root : get(slot);
    switch (m.kind()) {
      case REPLACE -> {
        if (slot.container() == null) {
          return new Raw(m.raw());
        }
        set(slot, new Raw(m.raw()));
      }
      case REMOVE -> {
        if (slot.container() == null) {
          return new LinkedHashMap<String, Object>();
        }
        remove(slot);
      }
      case ADD -> {
        Object into = value instanceof Map || value instanceof List ? value : slot.container() == null ? root : slot.container();
        if (into instanceof Map<?, ?> map) {
          @SuppressWarnings("unchecked") Map<String, Object> mm = (Map<String, Object>) map;
          mm.put(m.key(), new Raw(m.raw()));
        } else if (into instanceof List<?> list) {
          @SuppressWarnings("unchecked") List<Object> ll = (List<Object>) list;
          ll.add(new Raw(m.raw()));
        }
      }
      case DUPLICATE -> {
        // the same member twice, the second with a hostile value: JSON leaves the outcome to the parser
        if (slot.container() instanceof Map<?, ?> map && slot.key() instanceof String k) {
          @SuppressWarnings("unchecked") Map<String, Object> mm = (Map<String, Object>) map;
          mm.put(k, new Raw(writeValue(mm.get(k)) + ",\"" + escape(k) + "\":" + m.raw()));
        }
      }
    }
    return root;
  }

  private static void collect(Object node, List<Slot> slots) {
    if (node instanceof Map<?, ?> map) {
      for (Object k : map.keySet()) {
        slots.add(new Slot(map, k));
        collect(map.get(k), slots);
      }
    } else if (node instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        slots.add(new Slot(list, i));
        collect(list.get(i), slots);
      }
    }
  }

  private static Object get(Slot s) {
    return s.container() instanceof Map<?, ?> map ? map.get(s.key()) : ((List<?>) s.container()).get((Integer) s.key());
  }

  @SuppressWarnings("unchecked")
  private static void set(Slot s, Object value) {
    if (s.container() instanceof Map<?, ?> map) {
      ((Map<Object, Object>) map).put(s.key(), value);
    } else {
      ((List<Object>) s.container()).set((Integer) s.key(), value);
    }
  }

  private static void remove(Slot s) {
    if (s.container() instanceof Map<?, ?> map) {
      map.remove(s.key());
    } else {
      ((List<?>) s.container()).remove((int) (Integer) s.key());
    }
  }

  private static Object copy(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put(String.valueOf(k), copy(v)));
      return out;
    }
    if (value instanceof JsonObject o) {
      return copy(o.getMap());
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>();
      list.forEach(v -> out.add(copy(v)));
      return out;
    }
    if (value instanceof JsonArray a) {
      return copy(a.getList());
    }
    return value;
  }

  private static String writeValue(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out);
    return out.toString();
  }

  private static void write(Object value, StringBuilder out) {
    if (value instanceof Raw raw) {
      out.append(raw.json());
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        out.append('"').append(escape(String.valueOf(e.getKey()))).append("\":");
        write(e.getValue(), out);
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        write(list.get(i), out);
      }
      out.append(']');
    } else {
      out.append(Json.encode(value));
    }
  }

  private static String escape(String s) {
    String quoted = Json.encode(s);
    return quoted.substring(1, quoted.length() - 1);
  }

  // ---- showing inputs --------------------------------------------------------------------------

  /** Bytes as a Java-ish literal: printable ASCII as it is, everything else escaped; long ones abbreviated. */
  static String show(byte[] bytes) {
    if (bytes == null) {
      return "(none)";
    }
    String text = new String(bytes, StandardCharsets.UTF_8);
    boolean utf8 = java.util.Arrays.equals(text.getBytes(StandardCharsets.UTF_8), bytes);
    StringBuilder out = new StringBuilder();
    int shown = 0;
    if (utf8) {
      for (int i = 0; i < text.length() && shown < 400; i++, shown++) {
        char c = text.charAt(i);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
          out.append(c);
        } else {
          out.append(String.format("\\u%04x", (int) c));
        }
      }
      return "\"" + out + "\"" + (text.length() > 400 ? "…(" + bytes.length + " bytes)" : "");
    }
    for (int i = 0; i < bytes.length && shown < 400; i++, shown++) {
      int b = bytes[i] & 0xff;
      if (b >= 0x20 && b < 0x7f && b != '\\') {
        out.append((char) b);
      } else {
        out.append(String.format("\\x%02x", b));
      }
    }
    return "bytes\"" + out + "\"" + (bytes.length > 400 ? "…(" + bytes.length + " bytes)" : "");
  }

  static String show(String text) {
    return show(text == null ? null : text.getBytes(StandardCharsets.UTF_8));
  }
}
