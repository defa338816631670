package io.github.depothq.depot;

import java.math.BigInteger;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Typed reads of a parsed JSON object that has verified as depot's. A field of the wrong type is a
 * malformed answer, and so unverifiable: the message names the field by its path.
 */
final class Fields {
  private final Map<String, Object> map;
  private final String where;

  private Fields(Map<String, Object> map, String where) {
    this.map = map;
    this.where = where;
  }

  @SuppressWarnings("unchecked")
  static Fields of(Object value, String where) throws UnverifiableException {
    if (!(value instanceof Map<?, ?>)) throw new UnverifiableException(where + " is not a JSON object");
    return new Fields((Map<String, Object>) value, where);
  }

  Map<String, Object> map() {
    return map;
  }

  boolean has(String name) {
    return map.containsKey(name);
  }

  /** Present and not null. */
  boolean present(String name) {
    return map.get(name) != null;
  }

  Object raw(String name) {
    return map.get(name);
  }

  private UnverifiableException wrong(String name, String what) {
    return new UnverifiableException(where + "." + name + " is missing or not " + what);
  }

  String string(String name) throws UnverifiableException {
    if (map.get(name) instanceof String text) return text;
    throw wrong(name, "a string");
  }

  String optString(String name) throws UnverifiableException {
    Object value = map.get(name);
    if (value == null) return null;
    if (value instanceof String text) return text;
    throw wrong(name, "a string");
  }

  boolean bool(String name) throws UnverifiableException {
    if (map.get(name) instanceof Boolean b) return b;
    throw wrong(name, "a boolean");
  }

  boolean optBool(String name, boolean otherwise) throws UnverifiableException {
    Object value = map.get(name);
    if (value == null) return otherwise;
    if (value instanceof Boolean b) return b;
    throw wrong(name, "a boolean");
  }

  long integer(String name) throws UnverifiableException {
    if (map.get(name) instanceof Long n) return n;
    throw wrong(name, "an integer");
  }

  Long optInteger(String name) throws UnverifiableException {
    Object value = map.get(name);
    if (value == null) return null;
    if (value instanceof Long n) return n;
    throw wrong(name, "an integer");
  }

  Integer optInt(String name) throws UnverifiableException {
    Long n = optInteger(name);
    if (n == null) return null;
    if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) throw wrong(name, "a small integer");
    return n.intValue();
  }

  int integer32(String name) throws UnverifiableException {
    Integer n = optInt(name);
    if (n == null) throw wrong(name, "an integer");
    return n;
  }

  /** An id that depot writes as a string of digits (or, in a few places, a number). */
  String id(String name) throws UnverifiableException {
    Object value = map.get(name);
    if (value instanceof String text && !text.isEmpty()) return text;
    if (value instanceof Long || value instanceof BigInteger) return value.toString();
    throw wrong(name, "an id");
  }

  String optId(String name) throws UnverifiableException {
    return map.get(name) == null ? null : id(name);
  }

  Instant instant(String name) throws UnverifiableException {
    Instant at = optInstant(name);
    if (at == null) throw wrong(name, "a timestamp");
    return at;
  }

  Instant optInstant(String name) throws UnverifiableException {
    String text = optString(name);
    if (text == null) return null;
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw wrong(name, "a timestamp");
    }
  }

  /** Seconds since the epoch (a JWT's NumericDate), or null. */
  Instant optEpochSeconds(String name) throws UnverifiableException {
    Object value = map.get(name);
    if (value == null) return null;
    if (value instanceof Long n) return Instant.ofEpochSecond(n);
    if (value instanceof Double d && !d.isNaN() && !d.isInfinite()) return Instant.ofEpochSecond((long) Math.floor(d));
    throw wrong(name, "a number of seconds");
  }

  Fields object(String name) throws UnverifiableException {
    return Fields.of(map.get(name), where + "." + name);
  }

  Fields optObject(String name) throws UnverifiableException {
    return map.get(name) == null ? null : object(name);
  }

  List<Fields> objects(String name) throws UnverifiableException {
    if (!(map.get(name) instanceof List<?> list)) throw wrong(name, "an array");
    List<Fields> out = new ArrayList<>(list.size());
    for (int k = 0; k < list.size(); k++) out.add(Fields.of(list.get(k), where + "." + name + "[" + k + "]"));
    return out;
  }
}
