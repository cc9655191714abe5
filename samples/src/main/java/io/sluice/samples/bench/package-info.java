/**
 * Benchmarks and measurement programs ({@code samples/target/benchmarks.jar}): JMH benchmarks of the engine
 * (batch vs row-by-row page writes, the store, the streamer, binary objects) and one-run measurements with a
 * {@code main} (durability, cache stores, cache growth, field updates). How to run each and what it measures:
 * {@code docs/benchmarks.md}.
 */
package io.sluice.samples.bench;
