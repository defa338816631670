package io.github.depothq.depot;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A machine's heartbeats on a timer, from {@link DepotClient#startHeartbeat}: one at once, then one
 * every interval, on a daemon thread of its own, until {@link #stop()} (or {@link #close()}, so it
 * fits try-with-resources). A failed heartbeat is handed to {@code onError} and the next one is sent
 * on time; a refusal stops it, since no later heartbeat mends one ({@code HEARTBEAT_DEAD}: activate
 * again, {@code NOT_FOUND}, {@code REVOKED}, {@code EXPIRED}, …).
 */
public final class Heartbeat implements AutoCloseable {
  private final ScheduledExecutorService timer;
  private volatile Machine last;

  Heartbeat(DepotClient client, String key, String machineId, Duration interval, Consumer<DepotException> onError) {
    if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("the interval must be positive");
    timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "depot-heartbeat-" + machineId);
      thread.setDaemon(true);
      return thread;
    });
    timer.scheduleWithFixedDelay(() -> {
      try {
        last = client.heartbeat(key, machineId);
      } catch (DepotException e) {
        if (e instanceof RefusedException) timer.shutdown();
        if (onError != null) {
          try {
            onError.accept(e);
          } catch (RuntimeException ignored) {
            // the caller's handler must not stop the heartbeats
          }
        }
      } catch (RuntimeException e) {
        if (onError != null) onError.accept(new DepotException("heartbeat failed: " + e, e));
      }
    }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** The machine as the last heartbeat that verified left it, or null before the first. */
  public Machine lastMachine() {
    return last;
  }

  /** Whether heartbeats are still being sent. */
  public boolean isRunning() {
    return !timer.isShutdown();
  }

  /** Stops the heartbeats (one in flight is interrupted). */
  public void stop() {
    timer.shutdownNow();
  }

  @Override
  public void close() {
    stop();
  }
}
