/** The StockOrder workload's value ({@link io.sluice.samples.StockOrder}), shared by the load generators and benchmarks. */
package io.sluice.samples;
