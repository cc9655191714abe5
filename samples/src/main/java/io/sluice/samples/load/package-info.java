/**
 * {@code sluice-load}, the StockOrder load generator ({@link io.sluice.samples.load.LoadGenerator}): each mode
 * ({@link io.sluice.samples.load.LoadMode}) loads into a fresh store in a JVM of its own
 * ({@link io.sluice.samples.load.ChildJvm}, {@link io.sluice.samples.load.ForkProtocol}), repeats interleaved
 * ({@link io.sluice.samples.load.ModeRuns}), every load verified; the result table
 * ({@link io.sluice.samples.load.ResultTable}), files and charts ({@link io.sluice.samples.load.LoadCharts}).
 * {@code docs/benchmarks.md} describes the options and why modes are forked.
 */
package io.sluice.samples.load;
