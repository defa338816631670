package io.github.depothq.depot;

/** Told as a download goes: bytes in the file so far (a resumed part included), and its size (-1: unknown). */
@FunctionalInterface
public interface DownloadProgress {
  void onProgress(long received, long total);
}
