package io.github.depothq.depot;

import static io.github.depothq.depot.Check.contains;
import static io.github.depothq.depot.Check.eq;
import static io.github.depothq.depot.Check.fails;
import static io.github.depothq.depot.Check.ok;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON reader and writer the library verifies answers with. */
public final class JsonTest {
  private static Object parse(String text) throws Exception {
    return Json.parse(text);
  }

  private static void refused(String text, String why) {
    Json.JsonException e = fails(Json.JsonException.class, () -> Json.parse(text));
    contains(e.getMessage(), why);
  }

  @Test
  public void numbers() throws Exception {
    eq(0L, parse("0"));
    eq(-0L, parse("-0"));
    eq(42L, parse("42"));
    eq(-17L, parse("-17"));
    eq(Long.MAX_VALUE, parse("9223372036854775807"));
    eq(Long.MIN_VALUE, parse("-9223372036854775808"));
    eq(new BigInteger("9223372036854775808"), parse("9223372036854775808"));
    eq(1.5, parse("1.5"));
    eq(-0.25, parse("-0.25"));
    eq(1000.0, parse("1e3"));
    eq(0.015, parse("1.5E-2"));
    eq(120.0, parse("1.2e+2"));
    eq(0.0, parse("0.0"));
  }

  @Test
  public void malformedNumbers() {
    refused("01", "leading zero");
    refused("-01", "leading zero");
    refused("1.", "bad fraction");
    refused(".5", "unexpected character");
    refused("-", "bad number");
    refused("+1", "unexpected character");
    refused("1e", "bad exponent");
    refused("1e+", "bad exponent");
    refused("0x10", "text after the value");
    refused("1e400", "out of range");
    refused("NaN", "unexpected character");
    refused("Infinity", "unexpected character");
  }

  @Test
  public void strings() throws Exception {
    eq("", parse("\"\""));
    eq("plain", parse("\"plain\""));
    eq("q\"b\\s/n\nr\rt\tb\bf\f", parse("\"q\\\"b\\\\s\\/n\\nr\\rt\\tb\\bf\\f\""));
    eq("é", parse("\"\\u00e9\""));
    eq("é", parse("\"\\u00E9\""));
    eq("\u0000", parse("\"\\u0000\""));
    // A character outside the BMP: a surrogate pair of escapes, or the raw UTF-8 bytes.
    eq("\uD83D\uDE00", parse("\"\\ud83d\\ude00\""));
    eq("😀 ünïcode", Json.parse("\"😀 ünïcode\"".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  public void malformedStrings() {
    refused("\"open", "unexpected end");
    refused("\"tab\there\"", "control character");
    refused("\"new\nline\"", "control character");
    refused("\"\\x41\"", "bad escape");
    refused("\"\\u12\"", "bad \\u escape");
    refused("\"\\u12G4\"", "bad \\u escape");
    refused("\"\\ud83d\"", "lone surrogate");
    refused("\"\\ud83dx\"", "lone surrogate");
    refused("\"\\ud83d\\u0041\"", "lone surrogate");
    refused("\"\\ude00\"", "lone surrogate");
    refused("'single'", "unexpected character");
  }

  @Test
  public void bytesThatAreNotUtf8() {
    fails(Json.JsonException.class, "not UTF-8", () -> Json.parse(new byte[] {'"', (byte) 0xff, '"'}));
    fails(Json.JsonException.class, "not UTF-8", () -> Json.parse(new byte[] {'"', (byte) 0xc3, '"'}));
  }

  @Test
  public void nesting() throws Exception {
    Object value = parse(" { \"a\" : [ 1 , { \"b\" : null } , true , false , \"s\" ] , \"c\" : { } , \"d\" : [ ] } ");
    ok(value instanceof Map<?, ?>, "an object");
    Map<?, ?> map = (Map<?, ?>) value;
    eq(List.of("a", "c", "d"), List.copyOf(map.keySet()), "keys in order");
    List<?> a = (List<?>) map.get("a");
    eq(5, a.size());
    eq(1L, a.get(0));
    Map<?, ?> inner = (Map<?, ?>) a.get(1);
    ok(inner.containsKey("b") && inner.get("b") == null, "b is null");
    eq(Boolean.TRUE, a.get(2));
    eq(Boolean.FALSE, a.get(3));
    eq(Map.of(), map.get("c"));
    eq(List.of(), map.get("d"));
  }

  @Test
  public void depthLimit() throws Exception {
    String deepest = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
    ok(parse(deepest) instanceof List<?>, MAX_DEPTH_MESSAGE);
    refused("[".repeat(Json.MAX_DEPTH + 1) + "]".repeat(Json.MAX_DEPTH + 1), "nested deeper than 64");
    refused("{\"a\":".repeat(Json.MAX_DEPTH + 1) + "1" + "}".repeat(Json.MAX_DEPTH + 1), "nested deeper than 64");
    // Far deeper than the stack would take: refused without a StackOverflowError.
    refused("[".repeat(100_000), "nested deeper than 64");
  }

  private static final String MAX_DEPTH_MESSAGE = "nesting up to the limit parses";

  @Test
  public void malformedStructures() {
    refused("", "unexpected end");
    refused("   ", "unexpected end");
    refused("{", "expected a key");
    refused("{\"a\"}", "expected ':'");
    refused("{\"a\":1,}", "expected a key");
    refused("{a:1}", "expected a key");
    refused("[1,]", "unexpected character");
    refused("[1 2]", "expected ',' or ']'");
    refused("{\"a\":1 \"b\":2}", "expected ',' or '}'");
    refused("{\"a\":1,\"a\":2}", "duplicate key \"a\"");
    refused("tru", "unexpected character");
    refused("nul", "unexpected character");
  }

  @Test
  public void trailingGarbage() {
    refused("{} {}", "text after the value");
    refused("[1]]", "text after the value");
    refused("true false", "text after the value");
    refused("\"a\"x", "text after the value");
    refused("1 2", "text after the value");
    refused("\uFEFF{}", "unexpected character");
  }

  @Test
  public void writes() throws Exception {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("s", "a\"b\\c\n\u0001é😀");
    map.put("n", 42L);
    map.put("d", 1.5);
    map.put("t", true);
    map.put("z", null);
    map.put("l", List.of(1L, "x"));
    String text = Json.write(map);
    eq("{\"s\":\"a\\\"b\\\\c\\n\\u0001é😀\",\"n\":42,\"d\":1.5,\"t\":true,\"z\":null,\"l\":[1,\"x\"]}", text);
    eq(map, Json.parse(text), "what is written reads back");
    fails(IllegalArgumentException.class, () -> Json.write(Double.NaN));
  }
}
