package io.github.depothq.depot;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader and writer (RFC 8259), so the library needs nothing beyond the JDK.
 *
 * <p>Reading: objects become {@link LinkedHashMap}, arrays {@link ArrayList}, strings {@link String},
 * integers {@link Long} (or {@link BigInteger} past its range), other numbers {@link Double}, and
 * {@code true}/{@code false}/{@code null} {@link Boolean} and null. It refuses what a lenient parser
 * would guess at: duplicate keys (two readers picking different ones would see two answers), lone
 * surrogates, raw control characters, leading zeros, text after the value, and nesting deeper than
 * {@link #MAX_DEPTH} (the JWKS and every answer are read before they are trusted: a hostile server
 * must not overflow the stack).
 */
final class Json {
  static final int MAX_DEPTH = 64;

  /** Malformed JSON: the message says what and where. */
  static final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;

    JsonException(String message) {
      super(message);
    }
  }

  private final String s;
  private int i;
  private int depth;

  private Json(String s) {
    this.s = s;
  }

  /** Parses UTF-8 bytes; bytes that are not UTF-8 are refused, never replaced. */
  static Object parse(byte[] utf8) throws JsonException {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(utf8))
              .toString();
    } catch (CharacterCodingException e) {
      throw new JsonException("not UTF-8");
    }
    return parse(text);
  }

  static Object parse(String text) throws JsonException {
    Json p = new Json(text);
    Object value = p.value();
    p.whitespace();
    if (p.i != text.length()) throw p.error("text after the value");
    return value;
  }

  // --- reading ----------------------------------------------------------------------------------

  private JsonException error(String message) {
    return new JsonException(message + " at offset " + i);
  }

  private void whitespace() {
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
      i++;
    }
  }

  private char next() throws JsonException {
    if (i >= s.length()) throw error("unexpected end");
    return s.charAt(i++);
  }

  private Object value() throws JsonException {
    whitespace();
    if (i >= s.length()) throw error("unexpected end");
    char c = s.charAt(i);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        throw error("unexpected character '" + printable(c) + "'");
    }
  }

  private void enter() throws JsonException {
    if (++depth > MAX_DEPTH) throw error("nested deeper than " + MAX_DEPTH);
  }

  private Map<String, Object> object() throws JsonException {
    enter();
    Map<String, Object> map = new LinkedHashMap<>();
    i++; // {
    whitespace();
    if (i < s.length() && s.charAt(i) == '}') {
      i++;
      depth--;
      return map;
    }
    while (true) {
      whitespace();
      if (i >= s.length() || s.charAt(i) != '"') throw error("expected a key");
      String key = string();
      if (map.containsKey(key)) throw error("duplicate key \"" + key + "\"");
      whitespace();
      if (next() != ':') throw error("expected ':'");
      map.put(key, value());
      whitespace();
      char c = next();
      if (c == '}') {
        depth--;
        return map;
      }
      if (c != ',') throw error("expected ',' or '}'");
    }
  }

  private List<Object> array() throws JsonException {
    enter();
    List<Object> list = new ArrayList<>();
    i++; // [
    whitespace();
    if (i < s.length() && s.charAt(i) == ']') {
      i++;
      depth--;
      return list;
    }
    while (true) {
      list.add(value());
      whitespace();
      char c = next();
      if (c == ']') {
        depth--;
        return list;
      }
      if (c != ',') throw error("expected ',' or ']'");
    }
  }

  private String string() throws JsonException {
    StringBuilder b = new StringBuilder();
    i++; // "
    while (true) {
      char c = next();
      if (c == '"') return b.toString();
      if (c < 0x20) throw error("control character in a string");
      if (Character.isSurrogate(c)) {
        // The text came from UTF-8, so a raw surrogate is always half of a pair: keep both.
        if (Character.isHighSurrogate(c) && i < s.length() && Character.isLowSurrogate(s.charAt(i))) {
          b.append(c).append(s.charAt(i++));
          continue;
        }
        throw error("lone surrogate in a string");
      }
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = next();
      switch (e) {
        case '"', '\\', '/' -> b.append(e);
        case 'b' -> b.append('\b');
        case 'f' -> b.append('\f');
        case 'n' -> b.append('\n');
        case 'r' -> b.append('\r');
        case 't' -> b.append('\t');
        case 'u' -> {
          char unit = hex4();
          if (Character.isHighSurrogate(unit)) {
            // A character outside the BMP is two escapes, high then low: anything else is refused.
            if (!s.startsWith("\\u", i)) throw error("lone surrogate in a string");
            i += 2;
            char low = hex4();
            if (!Character.isLowSurrogate(low)) throw error("lone surrogate in a string");
            b.append(unit).append(low);
          } else if (Character.isLowSurrogate(unit)) {
            throw error("lone surrogate in a string");
          } else {
            b.append(unit);
          }
        }
        default -> throw error("bad escape \\" + printable(e));
      }
    }
  }

  private char hex4() throws JsonException {
    if (i + 4 > s.length()) throw error("bad \\u escape");
    int value = 0;
    for (int k = 0; k < 4; k++) {
      int digit = Character.digit(s.charAt(i + k), 16);
      if (digit < 0) throw error("bad \\u escape");
      value = value * 16 + digit;
    }
    i += 4;
    return (char) value;
  }

  private Object literal(String word, Object value) throws JsonException {
    if (!s.startsWith(word, i)) throw error("unexpected character '" + printable(s.charAt(i)) + "'");
    i += word.length();
    return value;
  }

  /** {@code -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?} */
  private Object number() throws JsonException {
    int start = i;
    if (s.charAt(i) == '-') i++;
    if (i >= s.length()) throw error("bad number");
    if (s.charAt(i) == '0') {
      i++;
      if (i < s.length() && isDigit(s.charAt(i))) throw error("leading zero in a number");
    } else if (isDigit(s.charAt(i))) {
      while (i < s.length() && isDigit(s.charAt(i))) i++;
    } else {
      throw error("bad number");
    }
    boolean integral = true;
    if (i < s.length() && s.charAt(i) == '.') {
      integral = false;
      i++;
      if (!digits()) throw error("bad fraction");
    }
    if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      integral = false;
      i++;
      if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
      if (!digits()) throw error("bad exponent");
    }
    String text = s.substring(start, i);
    if (integral) {
      BigInteger big = new BigInteger(text);
      return big.bitLength() < 64 ? (Object) big.longValue() : big;
    }
    double d = Double.parseDouble(text);
    if (Double.isInfinite(d)) throw error("number out of range");
    return d;
  }

  private boolean digits() {
    int from = i;
    while (i < s.length() && isDigit(s.charAt(i))) i++;
    return i > from;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static String printable(char c) {
    return c < 0x20 || c > 0x7e ? String.format("\\u%04x", (int) c) : String.valueOf(c);
  }

  // --- writing ----------------------------------------------------------------------------------

  /**
   * The JSON text of a value built of maps (string keys), lists, strings, numbers, booleans and null.
   * Non-ASCII stays as it is (the text is sent as UTF-8); control characters are escaped.
   */
  static String write(Object value) {
    StringBuilder b = new StringBuilder();
    write(b, value);
    return b.toString();
  }

  private static void write(StringBuilder b, Object value) {
    if (value == null) {
      b.append("null");
    } else if (value instanceof String text) {
      quote(b, text);
    } else if (value instanceof Boolean bool) {
      b.append(bool);
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("JSON has no " + d);
      b.append(d == Math.rint(d) && Math.abs(d) < 1e15 ? String.valueOf((long) d) : String.valueOf(d));
    } else if (value instanceof Number number) {
      b.append(number);
    } else if (value instanceof Map<?, ?> map) {
      b.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!(entry.getKey() instanceof String key)) throw new IllegalArgumentException("a JSON key must be a string");
        if (!first) b.append(',');
        first = false;
        quote(b, key);
        b.append(':');
        write(b, entry.getValue());
      }
      b.append('}');
    } else if (value instanceof Iterable<?> list) {
      b.append('[');
      boolean first = true;
      for (Object item : list) {
        if (!first) b.append(',');
        first = false;
        write(b, item);
      }
      b.append(']');
    } else {
      throw new IllegalArgumentException("cannot write " + value.getClass().getName() + " as JSON");
    }
  }

  private static void quote(StringBuilder b, String text) {
    b.append('"');
    for (int k = 0; k < text.length(); k++) {
      char c = text.charAt(k);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f) b.append(String.format("\\u%04x", (int) c));
          else b.append(c);
        }
      }
    }
    b.append('"');
  }
}
