package io.github.depothq.depot;

/**
 * A verified activation.
 *
 * @param created true for a new machine (201), false for a fingerprint already active (200, which
 *     is also a heartbeat)
 */
public record Activation(Machine machine, License license, boolean created) {}
