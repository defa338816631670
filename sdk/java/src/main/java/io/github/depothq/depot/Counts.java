package io.github.depothq.depot;

/**
 * How many of a license's addresses or alive machines are in use, and its limit.
 *
 * @param max null: no limit (machines on a license without maxMachines)
 */
public record Counts(int count, Integer max) {
  static Counts from(Fields f) throws UnverifiableException {
    return f == null ? null : new Counts(f.integer32("count"), f.optInt("max"));
  }
}
