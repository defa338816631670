package io.github.depothq.depot;

import java.util.Objects;

/** The assertions the tests use: each throws an AssertionError saying what was expected. */
final class Check {
  private Check() {}

  interface Body {
    void run() throws Exception;
  }

  static void eq(Object expected, Object actual) {
    if (!Objects.equals(expected, actual)) throw new AssertionError("expected <" + expected + "> but was <" + actual + ">");
  }

  static void eq(Object expected, Object actual, String what) {
    if (!Objects.equals(expected, actual)) throw new AssertionError(what + ": expected <" + expected + "> but was <" + actual + ">");
  }

  static void ok(boolean condition, String what) {
    if (!condition) throw new AssertionError(what);
  }

  static void contains(String text, String part) {
    if (text == null || !text.contains(part)) throw new AssertionError("expected \"" + text + "\" to contain \"" + part + "\"");
  }

  /** Runs {@code body}, which must throw a {@code type}; returns it. */
  static <T extends Throwable> T fails(Class<T> type, Body body) {
    try {
      body.run();
    } catch (Throwable t) {
      if (type.isInstance(t)) return type.cast(t);
      AssertionError e = new AssertionError("expected " + type.getSimpleName() + " but got " + t);
      e.initCause(t);
      throw e;
    }
    throw new AssertionError("expected " + type.getSimpleName() + " but nothing was thrown");
  }

  /** Runs {@code body}, which must throw a {@code type} whose message contains {@code part}. */
  static <T extends Throwable> T fails(Class<T> type, String part, Body body) {
    T t = fails(type, body);
    contains(t.getMessage(), part);
    return t;
  }
}
